//! The reordering pipeline (being assembled).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod error;
pub mod info;
mod spec;
pub mod sprs_interop;
pub mod windows;

pub use error::ReorderError;
pub use info::MatrixInfo;
pub use spec::{Method, PermuteMode, WindowSpec};
