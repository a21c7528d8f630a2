//! Pictures for spmv-reorder: what a reordering did to a matrix, and what it bought.
//!
//! - [`spy_png`] (and [`spy_image`] in memory) draws a matrix's sparsity pattern as a grayscale PNG:
//!   each pixel's darkness grows with the nonzeros of its block ([`SpyOptions`], [`Scale`]).
//! - [`bar_chart_svg`] (and [`bar_chart_svg_string`]) draws a grouped bar chart as SVG text, e.g. the
//!   SpMV speedup per matrix per ordering, with a reference line at 1.0 ([`BarChartOptions`]).
//!
//! Both write atomically: a temporary file in the target's directory, renamed over the target.
//!
//! ```
//! use spmv_reorder_plot::{bar_chart_svg_string, spy_image, BarChartOptions, SpyOptions};
//! use spmv_reorder_sparse::CsrMatrix;
//!
//! // A 3 x 3 identity drawn on 5 x 5 pixels: a black frame around a dark diagonal.
//! let eye = CsrMatrix::from_triplets(3, 3, (0..3).map(|i| (i, i, ()))).unwrap();
//! let img = spy_image(&eye, &SpyOptions { size_px: 5, ..SpyOptions::default() }).unwrap();
//! assert_eq!((img.width, img.height), (5, 5));
//! assert_eq!(img.pixel(0, 0), 0); // frame
//! assert_eq!(img.pixel(2, 2), 0); // diagonal
//! assert_eq!(img.pixel(3, 1), 255); // off the diagonal
//!
//! let svg = bar_chart_svg_string(
//!     "SpMV speedup",
//!     &["bcsstk13".to_string()],
//!     &[("rcm".to_string(), vec![1.3]), ("gorder".to_string(), vec![1.4])],
//!     "speedup over the original order",
//!     &BarChartOptions { reference_line: Some(1.0), ..BarChartOptions::default() },
//! )
//! .unwrap();
//! assert_eq!(svg.matches("<rect class=\"bar\"").count(), 2);
//! ```
//!
//! # Crate features
//! None.
//!
//! # Design decisions
//! - **PNG through the `png` crate, SVG as text.** No drawing library and no fonts: a spy plot is a
//!   pixel grid, and a bar chart is rectangles, lines and `<text>` in generic font families that the
//!   viewer renders.
//! - **Spy darkness is relative to the fullest block** (log scale by default), with a floor
//!   ([`MIN_INK`]) so that a single nonzero among millions of pixels stays visible; an absolute scale
//!   (count over block capacity) would leave most large sparse matrices blank.
//! - **Matrices smaller than the image are drawn with one block of pixels per entry**, so small
//!   examples stay readable at the default 512 px.
//! - **Block counting is parallel over bands of block rows**, each band owning its slice of the
//!   count grid (no locks, no atomics).
//! - Values are ignored: a spy plot shows structure only; `CsrMatrix<T>` of any value type is accepted.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod atomic;
mod bar_chart;
mod error;
mod spy;

pub use bar_chart::{bar_chart_svg, bar_chart_svg_string, BarChartOptions};
pub use error::PlotError;
pub use spy::{spy_image, spy_png, GrayImage, Scale, SpyOptions, MIN_INK};
