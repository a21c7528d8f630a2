//! Inputs for the binary readers (scipy's `.npz`, PETSc's binary): the bundled examples and
//! invalid files, files declaring huge sizes with a few entries, and mutations aware of the
//! formats: an `.npz` is taken apart into its `.npy` members, which are mutated and zipped again
//! (so that the mutation reaches the reader past the archive's checksums), a PETSc file has its
//! integers overwritten with extreme ones, in both byte orders.

use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use spmv_reorder::mtx::BinaryFormat;
use std::io::{Cursor, Read, Write};
use std::path::Path;

/// A binary matrix file: its format and bytes.
pub type Input = (BinaryFormat, Vec<u8>);

/// Integers that break size arithmetic: limits of 32 and 64 bits, signed and not.
const EXTREMES: &[u64] = &[
    0,
    1,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x1_0000_0000,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    u64::MAX,
    1 << 26,
    1 << 31,
];

/// The `.npz` and `.petsc` files under `dirs`, and files declaring huge sizes.
pub fn seeds(dirs: &[&Path]) -> Vec<Input> {
    let mut seeds: Vec<Input> = dirs
        .iter()
        .flat_map(|d| std::fs::read_dir(d).into_iter().flatten())
        .filter_map(|e| {
            let path = e.ok()?.path();
            let format = spmv_reorder::mtx::binary_format_of(&path)?;
            Some((format, std::fs::read(&path).ok()?))
        })
        .collect();
    seeds.extend(huge_declared_sizes());
    seeds
}

/// Tiny files whose headers declare 2^31 or 2^32 - 1 rows or columns, or more nonzeros than
/// they hold.
pub fn huge_declared_sizes() -> Vec<Input> {
    let npy = |descr: &str, shape: &str, data: &[u8]| {
        let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({shape}), }}");
        let mut v = b"\x93NUMPY\x01\x00".to_vec();
        let pad = (64 - (10 + dict.len() + 1) % 64) % 64;
        v.extend_from_slice(&((dict.len() + pad + 1) as u16).to_le_bytes());
        v.extend_from_slice(dict.as_bytes());
        v.extend(std::iter::repeat_n(b' ', pad));
        v.push(b'\n');
        v.extend_from_slice(data);
        v
    };
    let i8s = |v: &[i64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let format = |f: &str| npy("|S3", "", f.as_bytes());
    let shape = |r: i64, c: i64| npy("<i8", "2,", &i8s(&[r, c]));
    let one = npy("<f8", "1,", &1.0f64.to_le_bytes());
    let big = (1i64 << 32) - 1;
    let mut files = vec![
        // CSC whose transpose has a row offset per declared row.
        zip_members(&[
            ("format", format("csc")),
            ("shape", shape(big, 2)),
            ("indptr", npy("<i8", "3,", &i8s(&[0, 1, 1]))),
            ("indices", npy("<i8", "1,", &i8s(&[big - 1]))),
            ("data", one.clone()),
        ]),
        // COO declaring 2^31 x 2^31.
        zip_members(&[
            ("format", format("coo")),
            ("shape", shape(1 << 31, 1 << 31)),
            ("row", npy("<i8", "1,", &i8s(&[(1 << 31) - 1]))),
            ("col", npy("<i8", "1,", &i8s(&[3]))),
            ("data", one.clone()),
        ]),
        // CSR whose data claims 2^40 values and holds one.
        zip_members(&[
            ("format", format("csr")),
            ("shape", shape(1, 1)),
            ("indptr", npy("<i8", "2,", &i8s(&[0, 1 << 40]))),
            ("indices", npy("<i8", "1099511627776,", &i8s(&[0]))),
            ("data", npy("<f8", "1099511627776,", &1.0f64.to_le_bytes())),
        ]),
    ];
    let petsc = |words: &[u32]| {
        words
            .iter()
            .flat_map(|w| w.to_be_bytes())
            .collect::<Vec<u8>>()
    };
    files.extend([
        // 2^31 - 1 rows in a 20-byte file; 2^31 - 1 nonzeros; 2^32 - 1 rows and 2^63 - 1
        // nonzeros in 64-bit headers.
        petsc(&[1_211_216, 0x7fff_ffff, 0x7fff_ffff, 1, 1]),
        petsc(&[1_211_216, 1, 1, 0x7fff_ffff, 0x7fff_ffff]),
        petsc(&[0, 1_211_216, 0, u32::MAX, 0, u32::MAX, 0, 1, 0, 1]),
        petsc(&[0, 1_211_216, 0, 1, 0, 1, 0x7fff_ffff, u32::MAX, 0, 1]),
    ]);
    let petsc = files.split_off(3);
    let npz = files.into_iter().map(|b| (BinaryFormat::Npz, b));
    npz.chain(petsc.into_iter().map(|b| (BinaryFormat::Petsc, b)))
        .collect()
}

/// `input` mutated as its format allows; `text` mutates an `.npy` header (text) or a body.
pub fn mutate(
    rng: &mut Xoshiro256PlusPlus,
    (format, bytes): Input,
    text: impl Fn(&mut Xoshiro256PlusPlus, Vec<u8>) -> Vec<u8>,
) -> Input {
    let bytes = match format {
        BinaryFormat::Npz if rng.random_bool(0.9) => match unzip(&bytes) {
            Some(mut members) if !members.is_empty() => {
                for _ in 0..rng.random_range(1..=2) {
                    let k = rng.random_range(0..members.len());
                    let member = std::mem::take(&mut members[k].1);
                    members[k].1 = match rng.random_range(0..3) {
                        0 => text(rng, member),
                        1 => overwrite_integers(rng, member),
                        _ if members.len() > 1 => {
                            members.remove(k);
                            continue;
                        }
                        _ => member,
                    };
                }
                let named: Vec<(&str, Vec<u8>)> = members
                    .iter()
                    .map(|(n, b)| (n.as_str(), b.clone()))
                    .collect();
                zip_members(&named)
            }
            _ => text(rng, bytes),
        },
        _ if rng.random_bool(0.7) => overwrite_integers(rng, bytes),
        _ => text(rng, bytes),
    };
    (format, bytes)
}

/// One to three 4- or 8-byte integers of `bytes` replaced by extreme ones, in either order.
fn overwrite_integers(rng: &mut Xoshiro256PlusPlus, mut bytes: Vec<u8>) -> Vec<u8> {
    for _ in 0..rng.random_range(1..=3) {
        let width = if rng.random_bool(0.5) { 4 } else { 8 };
        if bytes.len() < width {
            return bytes;
        }
        // Aligned, as the header and arrays are.
        let at = rng.random_range(0..=(bytes.len() - width) / width) * width;
        let value = EXTREMES[rng.random_range(0..EXTREMES.len())];
        let word = if rng.random_bool(0.5) {
            value.to_be_bytes()
        } else {
            value.to_le_bytes()
        };
        let word = if rng.random_bool(0.5) {
            &word[..width]
        } else {
            &word[8 - width..]
        };
        bytes[at..at + width].copy_from_slice(word);
    }
    bytes
}

/// The members of a zip archive, in order, or `None` when it is not one.
fn unzip(bytes: &[u8]) -> Option<Vec<(String, Vec<u8>)>> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).ok()?;
    (0..archive.len())
        .map(|i| {
            let mut file = archive.by_index(i).ok()?;
            let name = file.name().ok()?.trim_end_matches(".npy").to_string();
            let mut data = Vec::new();
            // Members of the seeds are small; a mutated one may claim anything.
            file.by_ref().take(1 << 24).read_to_end(&mut data).ok()?;
            Some((name, data))
        })
        .collect()
}

/// A zip archive (stored, as scipy's `save_npz(compressed=False)`) of `name.npy` members.
fn zip_members(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, data) in members {
        zip.start_file(format!("{name}.npy"), options)
            .expect("in memory");
        zip.write_all(data).expect("in memory");
    }
    zip.finish().expect("in memory").into_inner()
}
