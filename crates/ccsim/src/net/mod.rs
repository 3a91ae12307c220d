//! The network: link directions, loss models and routing.

mod express_red;
pub mod fifo;
mod general;
mod inbound;
pub mod link;
pub mod loss;
mod ring;
pub mod routing;
