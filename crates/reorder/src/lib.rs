//! The reordering pipeline (being assembled).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod error;
mod spec;
pub mod sprs_interop;

pub use error::ReorderError;
pub use spec::{Method, PermuteMode, WindowSpec};
