//! The network: link directions, loss models and routing.

pub mod express;
mod general_path;
mod inbound;
pub mod link;
pub mod loss;
pub mod packet_log;
mod ring;
pub mod routing;
pub mod wire;
