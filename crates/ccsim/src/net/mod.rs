//! The network: link directions, loss models and routing.

pub mod fifo;
pub mod link;
pub mod loss;
pub mod routing;
