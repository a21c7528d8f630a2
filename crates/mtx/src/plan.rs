//! [`OutputPlan`]: the files one run reads and writes, checked before any is written, so that no
//! output replaces an input or another output of the same run. `O(files²)` identity comparisons.

use crate::error::MtxError;
use crate::target::{self, FileId};
use std::path::{Path, PathBuf};

/// The files of one run: every input, then every output, each under the name the user gave it
/// (an option, e.g. `--report`).
///
/// The rule it keeps: **an output is never an input, nor another output of the same run**,
/// where "is" means the same file after symbolic links (device and inode), however it is spelt.
/// Outputs are resolved as the writers resolve them ([`crate::write_atomically`]): a directory, a
/// block device or a socket is refused; a character device or FIFO is written in place and takes
/// several writers; `-` is standard output, which counts as a file when redirected to one.
///
/// ```
/// use spmv_reorder_mtx::{MtxError, OutputPlan};
///
/// let dir = tempfile::tempdir()?;
/// let input = dir.path().join("in.mtx");
/// std::fs::write(&input, "")?;
/// let mut plan = OutputPlan::new();
/// plan.input("input", &input);
/// plan.output("-o", &dir.path().join("out.mtx"))?;
/// let err = plan.output("--report", &dir.path().join("./in.mtx")).unwrap_err();
/// assert!(matches!(err, MtxError::SameFile { other_is_input: true, .. }));
/// let err = plan.output("--perm-out", &dir.path().join("out.mtx")).unwrap_err();
/// assert!(matches!(err, MtxError::SameFile { other_is_input: false, .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
pub struct OutputPlan {
    files: Vec<Planned>,
}

#[derive(Debug)]
struct Planned {
    what: String,
    path: PathBuf,
    input: bool,
    id: FileId,
}

impl OutputPlan {
    /// An empty plan.
    pub fn new() -> Self {
        OutputPlan::default()
    }

    /// Records an input (`-`: standard input). One that cannot be read is left for its reader to
    /// report.
    pub fn input(&mut self, what: impl Into<String>, path: &Path) -> &mut Self {
        if let Some(id) = target::input_id(path) {
            self.files.push(Planned {
                what: what.into(),
                path: path.to_path_buf(),
                input: true,
                id,
            });
        }
        self
    }

    /// Records an output (`-`: standard output), refusing it when it is a file already recorded.
    ///
    /// # Errors
    /// [`MtxError::SameFile`] naming both; [`MtxError::NotWritable`] for a directory, block device
    /// or socket; [`MtxError::Io`] when the directory of a new file does not exist.
    pub fn output(&mut self, what: impl Into<String>, path: &Path) -> Result<&mut Self, MtxError> {
        let what = what.into();
        let Some(id) = target::output_id(&target::resolve(path)?) else {
            return Ok(self);
        };
        if let Some(other) = self.files.iter().find(|f| f.id == id) {
            return Err(MtxError::SameFile {
                what,
                path: path.to_path_buf(),
                other_what: other.what.clone(),
                other: other.path.clone(),
                other_is_input: other.input,
            });
        }
        self.files.push(Planned {
            what,
            path: path.to_path_buf(),
            input: false,
            id,
        });
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clashes_are_found_through_links_hard_links_and_spellings() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("in.mtx"), "x").unwrap();
        std::fs::hard_link(d.join("in.mtx"), d.join("hard.mtx")).unwrap();
        std::os::unix::fs::symlink(d.join("in.mtx"), d.join("soft.mtx")).unwrap();
        let plan = || {
            let mut p = OutputPlan::new();
            p.input("input", &d.join("in.mtx"));
            p
        };
        for name in ["in.mtx", "hard.mtx", "soft.mtx", "./sub/../in.mtx"] {
            std::fs::create_dir_all(d.join("sub")).unwrap();
            let err = plan().output("-o", &d.join(name)).unwrap_err();
            assert!(
                err.to_string().contains("refusing to overwrite an input"),
                "{name}: {err}"
            );
        }
        let mut p = plan();
        p.output("-o", &d.join("new.mtx")).unwrap();
        let err = p.output("--report", &d.join("sub/../new.mtx")).unwrap_err();
        assert!(err.to_string().contains("its own file"), "{err}");
        // Devices take several writers; a missing input is its reader's to report.
        p.output("--spy", Path::new("/dev/null")).unwrap();
        p.output("--perm-out", Path::new("/dev/null")).unwrap();
        p.input("trace", &d.join("absent.txt"));
        p.output("--chart", &d.join("absent.txt")).unwrap();
    }
}
