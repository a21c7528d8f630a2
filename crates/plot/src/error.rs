//! The one error type of this crate.

use spmv_reorder_mtx::MtxError;

/// Errors from drawing or writing a picture.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlotError {
    /// Creating, writing or renaming the output file failed (the error names the path).
    #[error(transparent)]
    Output(#[from] MtxError),
    /// The PNG encoder refused the image.
    #[error("cannot encode a {width} x {height} PNG")]
    Png {
        /// Image width.
        width: u32,
        /// Image height.
        height: u32,
        /// The encoder's error.
        source: png::EncodingError,
    },
    /// A spy plot needs room for a frame and at least one pixel inside it.
    #[error("image size {size_px} px is out of range {min}..={max}")]
    InvalidSize {
        /// The size asked for.
        size_px: u32,
        /// The smallest size accepted.
        min: u32,
        /// The largest size accepted.
        max: u32,
    },
    /// A bar-chart series does not have one value per category.
    #[error("series {series:?} has {found} values for {expected} categories")]
    SeriesLength {
        /// The series' name.
        series: String,
        /// The number of categories.
        expected: usize,
        /// The number of values in the series.
        found: usize,
    },
    /// A bar-chart value is NaN or infinite.
    #[error("series {series:?}, category {category}: value {value} is not finite")]
    NotFinite {
        /// The series' name.
        series: String,
        /// The index of the category.
        category: usize,
        /// The value.
        value: f64,
    },
}
