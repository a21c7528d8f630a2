//! Spy plot: the sparsity pattern of an `m x n` matrix as a grayscale PNG.
//!
//! Each pixel covers a block of rows and columns; its darkness grows with the number of nonzeros in
//! the block (linear or logarithmic in the count, relative to the fullest block; any nonzero is at
//! least [`MIN_INK`] dark so that isolated entries stay visible). A matrix smaller than the image is
//! drawn with one block of pixels per entry. White background, a 1-px black frame; the long side of
//! the image is `size_px`, the short side keeps the matrix's aspect. Cost: `O(nnz + size_px²)`,
//! block counts in parallel over bands of rows (each band owns its slice of the count grid).
//! Called by [`crate::spy_png`] (the CLI's `--spy`).

use crate::atomic::write_atomically;
use crate::PlotError;
use rayon::prelude::*;
use spmv_reorder_sparse::{CsrMatrix, Value};
use std::path::Path;

/// The smallest darkness (0 = white, 1 = black) of a block holding at least one nonzero.
pub const MIN_INK: f64 = 0.3;

/// Accepted image sizes: a frame plus at least one pixel, and at most a 16k-pixel side.
const SIZE_RANGE: std::ops::RangeInclusive<u32> = 3..=16384;

/// How a block's nonzero count maps to darkness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Scale {
    /// `count / max_count`.
    Linear,
    /// `ln(1 + count) / ln(1 + max_count)`: shows sparse blocks next to dense ones.
    #[default]
    Log,
}

/// Options of [`spy_png`] and [`spy_image`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpyOptions {
    /// Pixels on the long side of the image, frame included. Default 512; accepted 3 to 16384.
    pub size_px: u32,
    /// Count-to-darkness mapping. Default [`Scale::Log`].
    pub scale: Scale,
}

impl Default for SpyOptions {
    fn default() -> Self {
        Self {
            size_px: 512,
            scale: Scale::default(),
        }
    }
}

/// An 8-bit grayscale image, row-major, `0` black and `255` white.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrayImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height` gray levels, row after row.
    pub pixels: Vec<u8>,
}

impl GrayImage {
    /// The gray level at column `x`, row `y`.
    ///
    /// # Panics
    /// If `(x, y)` is outside the image.
    pub fn pixel(&self, x: u32, y: u32) -> u8 {
        assert!(x < self.width && y < self.height, "pixel outside the image");
        self.pixels[y as usize * self.width as usize + x as usize]
    }
}

/// Draws the spy plot of `pattern` (values are ignored) in memory.
///
/// # Errors
/// [`PlotError::InvalidSize`] when `options.size_px` is outside 3 to 16384.
pub fn spy_image<T: Value>(
    pattern: &CsrMatrix<T>,
    options: &SpyOptions,
) -> Result<GrayImage, PlotError> {
    if !SIZE_RANGE.contains(&options.size_px) {
        return Err(PlotError::InvalidSize {
            size_px: options.size_px,
            min: *SIZE_RANGE.start(),
            max: *SIZE_RANGE.end(),
        });
    }
    let (inner_w, inner_h) = plot_area(pattern.nrows(), pattern.ncols(), options.size_px - 2);
    let blocks = BlockCounts::new(pattern, inner_w, inner_h);
    let shade = shading(blocks.max(), options.scale);
    let (width, height) = (inner_w + 2, inner_h + 2);
    let mut pixels = vec![0u8; width * height];
    pixels
        .par_chunks_mut(width)
        .enumerate()
        .filter(|(y, _)| *y > 0 && *y < height - 1)
        .for_each(|(y, line)| {
            let cell_row = (y - 1) * blocks.rows / inner_h;
            for (x, px) in line[1..width - 1].iter_mut().enumerate() {
                *px = shade(blocks.get(cell_row, x * blocks.cols / inner_w));
            }
        });
    Ok(GrayImage {
        width: width as u32,
        height: height as u32,
        pixels,
    })
}

/// Draws the spy plot of `pattern` and writes it to `path` as a PNG, atomically.
///
/// # Errors
/// [`PlotError::InvalidSize`] for a bad size, [`PlotError::Io`] or [`PlotError::Png`] when writing fails.
pub fn spy_png<T: Value>(
    pattern: &CsrMatrix<T>,
    path: &Path,
    options: &SpyOptions,
) -> Result<(), PlotError> {
    let image = spy_image(pattern, options)?;
    write_atomically(path, |out| {
        let mut encoder = png::Encoder::new(out, image.width, image.height);
        encoder.set_color(png::ColorType::Grayscale);
        encoder.set_depth(png::BitDepth::Eight);
        let png_error = |source| PlotError::Png {
            path: path.to_path_buf(),
            source,
        };
        let mut writer = encoder.write_header().map_err(png_error)?;
        writer.write_image_data(&image.pixels).map_err(png_error)?;
        writer.finish().map_err(png_error)
    })
}

/// The inner (frameless) width and height for an `m x n` matrix with `long` pixels on the long side.
fn plot_area(m: usize, n: usize, long: u32) -> (usize, usize) {
    let long = long as usize;
    if m == n {
        return (long, long);
    }
    let short = |small: usize, big: usize| ((long * small + big / 2) / big.max(1)).max(1);
    if m >= n {
        (short(n, m), long)
    } else {
        (long, short(m, n))
    }
}

/// Nonzero counts on a grid of `rows x cols` blocks, at most one block per pixel and per entry.
struct BlockCounts {
    rows: usize,
    cols: usize,
    counts: Vec<u32>,
}

impl BlockCounts {
    fn new<T: Value>(a: &CsrMatrix<T>, inner_w: usize, inner_h: usize) -> Self {
        let (m, n) = (a.nrows(), a.ncols());
        let rows = inner_h.min(m).max(1);
        let cols = inner_w.min(n).max(1);
        let mut counts = vec![0u32; rows * cols];
        // Matrix rows [first_row(b), first_row(b + 1)) fall in block row b = ⌊i·rows/m⌋.
        let first_row = |b: usize| (b * m).div_ceil(rows);
        counts
            .par_chunks_mut(cols)
            .enumerate()
            .for_each(|(b, band)| {
                for i in first_row(b)..first_row(b + 1) {
                    for &j in a.row(i).0 {
                        let c = &mut band[j as usize * cols / n];
                        *c = c.saturating_add(1);
                    }
                }
            });
        Self { rows, cols, counts }
    }

    fn get(&self, r: usize, c: usize) -> u32 {
        self.counts[r * self.cols + c]
    }

    fn max(&self) -> u32 {
        self.counts.iter().copied().max().unwrap_or(0)
    }
}

/// The gray level of a block with `count` nonzeros when the fullest block has `max`.
fn shading(max: u32, scale: Scale) -> impl Fn(u32) -> u8 + Sync {
    move |count| {
        if count == 0 {
            return 255;
        }
        let fraction = match scale {
            Scale::Linear => count as f64 / max as f64,
            Scale::Log => (count as f64).ln_1p() / (max as f64).ln_1p(),
        };
        let ink = MIN_INK + (1.0 - MIN_INK) * fraction;
        (255.0 * (1.0 - ink)).round() as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(n: usize) -> CsrMatrix<()> {
        CsrMatrix::from_triplets(n, n, (0..n).map(|i| (i, i, ()))).unwrap()
    }

    fn decode(path: &Path) -> GrayImage {
        let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
        let mut reader = png::Decoder::new(file).read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!(info.color_type, png::ColorType::Grayscale);
        buf.truncate(info.buffer_size());
        GrayImage {
            width: info.width,
            height: info.height,
            pixels: buf,
        }
    }

    /// Frame black; inside, pixel `(x, y)` is dark exactly when its row block and column block are
    /// the same (the diagonal entry's block), white otherwise.
    fn check_identity_picture(img: &GrayImage, n: usize) {
        let s = img.width;
        let inner = s as usize - 2;
        let block = |t: u32| (t as usize - 1) * n.min(inner) / inner;
        for t in 0..s {
            for edge in [(t, 0), (t, s - 1), (0, t), (s - 1, t)] {
                assert_eq!(img.pixel(edge.0, edge.1), 0, "frame at {edge:?}");
            }
        }
        for y in 1..s - 1 {
            for x in 1..s - 1 {
                let p = img.pixel(x, y);
                if block(x) == block(y) {
                    assert!(p < 128, "diagonal block ({x},{y}) = {p}");
                } else {
                    assert_eq!(p, 255, "off-diagonal ({x},{y})");
                }
            }
        }
    }

    #[test]
    fn identity_png_round_trip_downsampled_and_upsampled() {
        let dir = tempfile::tempdir().unwrap();
        for (n, size) in [(1000, 66), (10, 42), (64, 66)] {
            let path = dir.path().join(format!("id{n}.png"));
            let options = SpyOptions {
                size_px: size,
                scale: Scale::Linear,
            };
            spy_png(&identity(n), &path, &options).unwrap();
            let img = decode(&path);
            assert_eq!((img.width, img.height), (size, size));
            check_identity_picture(&img, n);
        }
    }

    #[test]
    fn rectangular_keeps_aspect() {
        let a = CsrMatrix::from_triplets(100, 400, vec![(0, 0, ()), (99, 399, ())]).unwrap();
        let img = spy_image(&a, &SpyOptions::default()).unwrap();
        assert_eq!((img.width, img.height), (512, 2 + 128));
        assert!(img.pixel(1, 1) < 255 && img.pixel(510, 128) < 255);
        assert_eq!(img.pixel(255, 64), 255);
    }

    #[test]
    fn darkness_grows_with_the_count() {
        // Block (0,0) holds 4 entries, block (1,1) one: the first is darker.
        let t = vec![(0, 0, ()), (0, 1, ()), (1, 0, ()), (1, 1, ()), (3, 3, ())];
        let a = CsrMatrix::from_triplets(4, 4, t).unwrap();
        for scale in [Scale::Linear, Scale::Log] {
            let img = spy_image(&a, &SpyOptions { size_px: 4, scale }).unwrap();
            assert_eq!(img.pixel(1, 1), 0);
            assert!(img.pixel(2, 2) > 0 && img.pixel(2, 2) < 255);
            assert_eq!(img.pixel(2, 1), 255);
        }
    }

    #[test]
    fn empty_matrices_and_bad_sizes() {
        for (m, n) in [(0, 0), (0, 5), (5, 0), (3, 3)] {
            let a: CsrMatrix<()> = CsrMatrix::from_triplets(m, n, vec![]).unwrap();
            let img = spy_image(&a, &SpyOptions::default()).unwrap();
            assert!(img.pixels.iter().filter(|&&p| p != 255).count() <= 4 * 512);
        }
        let a = identity(3);
        for size_px in [0, 2, 16385] {
            let e = spy_image(
                &a,
                &SpyOptions {
                    size_px,
                    scale: Scale::Log,
                },
            )
            .unwrap_err();
            assert!(matches!(e, PlotError::InvalidSize { .. }));
        }
    }
}
