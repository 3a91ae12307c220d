//! Applications that are not TCP's own: UDP sources, at a constant bit rate or on and off.

pub mod onoff;
pub mod udp;

pub use onoff::OnOff;
pub use udp::UdpSource;
