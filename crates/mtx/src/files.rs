//! Matrix files by extension: `.npz` is scipy's sparse layout (`npz.rs`), `.petsc` PETSc's
//! binary format (`petsc.rs`), anything else Matrix Market (plain or gzip, `read.rs`,
//! `write.rs`). Every output is written atomically. Called by [`crate::read_path`] and
//! [`crate::write_path`].

use crate::binary_error::BinaryFormat;
use crate::input::is_dash;
use std::path::Path;

/// The format of a matrix file, from its extension (case-insensitive): `None` for Matrix Market.
pub fn binary_format_of(path: &Path) -> Option<BinaryFormat> {
    if is_dash(path) {
        return None;
    }
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "npz" => Some(BinaryFormat::Npz),
        "petsc" => Some(BinaryFormat::Petsc),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_extension() {
        let of = |p: &str| binary_format_of(Path::new(p));
        assert_eq!(of("a.npz"), Some(BinaryFormat::Npz));
        assert_eq!(of("dir.x/A.PETSC"), Some(BinaryFormat::Petsc));
        assert_eq!(of("a.mtx.gz"), None);
        assert_eq!(of("a.npz.mtx"), None);
        assert_eq!(of("-"), None);
        assert_eq!(of("npz"), None);
    }
}
