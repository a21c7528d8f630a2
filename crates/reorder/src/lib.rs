//! The reordering pipeline (being assembled).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod error;
pub mod info;
mod pipeline;
mod report;
mod sampler;
mod spec;
pub mod sprs_interop;
pub mod windows;

pub use error::ReorderError;
pub use info::MatrixInfo;
pub use pipeline::{Reorderer, Reordering, Stage};
pub use report::{ReorderReport, SideReport, TspReport};
pub use sampler::SamplerChoice;
pub use spec::{Method, PermuteMode, WindowSpec};
