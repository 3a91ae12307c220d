//! The network: link directions, loss models and routing.

mod express_red;
pub mod fifo;
mod general;
mod inbound;
pub mod link;
pub mod loss;
pub mod packet_log;
mod ring;
pub mod routing;
pub mod wire;
