//! `spmv-reorder info FILE [--window SPEC] [--json]`: describe a matrix.

use anyhow::Context;
use spmv_reorder::evaluate::MatrixInfo;
use spmv_reorder::mtx::{read_path_occupied, OutputPlan, ReadOptions};
use spmv_reorder::reorder::WindowSpec;
use std::path::{Path, PathBuf};

/// Arguments of `spmv-reorder info`.
#[derive(Debug, clap::Args)]
pub struct InfoArgs {
    /// The matrix (Matrix Market `.mtx`/`.mtx.gz`, scipy `.npz`, PETSc `.petsc`; `-`: Matrix Market on stdin).
    file: PathBuf,
    /// Also report D_w for these windows: `1`, a window size `N`, `var`, or `cache[:BYTES]`.
    #[arg(long, value_name = "SPEC")]
    window: Option<WindowSpec>,
    /// Print JSON (keys include rows, cols, nnz, D, and D_w with --window).
    #[arg(long)]
    json: bool,
}

/// Runs `spmv-reorder info`.
pub fn run(args: InfoArgs) -> anyhow::Result<()> {
    // `info m.mtx >> m.mtx` would append to the file being described.
    OutputPlan::new()
        .input("input", &args.file)
        .output("standard output", Path::new("-"))?;
    // Only the rows and columns that hold entries are read. When they are most of the matrix,
    // or for D_w (where windows fall among empty rows), the whole matrix is described as it is;
    // a file declaring far more rows and columns than it has entries costs its entries, and the
    // cache model then replays its occupied part.
    let part = read_path_occupied(&args.file, &ReadOptions::default())?;
    let o = &part.occupancy;
    let declared = o.nrows() as u64 + o.ncols() as u64;
    let whole = args.window.is_some() || declared <= 4 * part.file.nnz() as u64 + (1 << 20);
    let (nrows, ncols) = match whole {
        true => (o.nrows(), o.ncols()),
        false => (part.file.nrows(), part.file.ncols()),
    };
    super::memory::reserve_for("info", super::memory::INFO, nrows, ncols, part.file.nnz())?;
    let info = match whole {
        true => MatrixInfo::compute(&part.whole()?, args.window),
        false => MatrixInfo::compute_occupied(&part, None),
    }
    .with_context(|| format!("{}", args.file.display()))?;
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &info)?;
        writeln!(out)?;
    } else {
        print_human(&mut out, &args.file, &info)?;
        if !whole {
            writeln!(
                out,
                "                    (x misses of the rows and columns with entries)"
            )?;
        }
    }
    Ok(())
}

use std::io::Write;

fn print_human(
    out: &mut impl Write,
    file: &std::path::Path,
    i: &MatrixInfo,
) -> std::io::Result<()> {
    writeln!(out, "file                {}", file.display())?;
    writeln!(out, "banner              {}", i.banner)?;
    writeln!(out, "size                {} x {}", i.rows, i.cols)?;
    writeln!(
        out,
        "nonzeros            {} ({} stored, as the banner's symmetry keeps them; duplicates summed)",
        i.nnz, i.nnz_stored
    )?;
    writeln!(
        out,
        "nonzeros per row    min {}  mean {:.2}  max {}  ({} empty rows)",
        i.row_nnz_min, i.row_nnz_mean, i.row_nnz_max, i.empty_rows
    )?;
    writeln!(out, "bandwidth           {}", i.bandwidth)?;
    writeln!(
        out,
        "structurally sym.   {}",
        if i.structurally_symmetric {
            "yes"
        } else {
            "no"
        }
    )?;
    writeln!(
        out,
        "D (row distance)    {}  (lower is better locality)",
        i.d
    )?;
    let per_mille = |c: u64| 1000.0 * c as f64 / i.nnz.max(1) as f64;
    writeln!(
        out,
        "x misses (model)    L1 {:.1}  L2 {:.1} per 1000 nonzeros  (32 KiB L1, 1 MiB L2; fewer is faster)",
        per_mille(i.x_misses.l1_misses),
        per_mille(i.x_misses.l2_misses)
    )?;
    if let (Some(w), Some(n), Some(dw)) = (&i.window, i.windows, i.d_w) {
        // The label padded to the column of the figures, whatever the window's spelling.
        let label = format!("D_w (window {w})");
        writeln!(out, "{label:<19} {dw}  over {n} windows")?;
    }
    Ok(())
}
