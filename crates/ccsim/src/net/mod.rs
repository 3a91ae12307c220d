//! The network: link directions, loss models and routing.

pub mod fifo;
mod general;
pub mod link;
pub mod loss;
pub mod routing;
