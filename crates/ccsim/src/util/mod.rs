//! Small data structures and helpers with nothing of TCP or networks in them.

pub mod packed_names;
pub mod packed_option;
pub mod prefetch;
pub mod win_minmax;
