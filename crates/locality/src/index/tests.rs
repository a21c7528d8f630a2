use super::*;
use crate::tests::spec_example;
use crate::Windows;

#[test]
fn index_inverts_footprints() {
    let a = spec_example();
    let f = Footprints::new(&a, &Windows::single_rows(4), Parallelism::Sequential).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let par = pool.install(|| ColumnIndex::<u32>::new(&f, EntryCodec::new(4), Parallelism::Rayon));
    let seq = ColumnIndex::<u32>::new(&f, EntryCodec::new(4), Parallelism::Sequential);
    let wide = ColumnIndex::<usize>::new(&f, EntryCodec::tight(), Parallelism::Sequential);
    assert_eq!(par, seq);
    let windows = |c: u32| -> Vec<(u32, u32)> {
        let wide_list: Vec<_> = wide.list(c).iter().map(|&e| wide.decode(e, &f)).collect();
        let list: Vec<_> = seq.list(c).iter().map(|&e| seq.decode(e, &f)).collect();
        assert_eq!(wide_list, list);
        list
    };
    assert_eq!(windows(0), vec![(0, 2), (3, 3)]);
    assert_eq!(windows(1), vec![(0, 2), (1, 2), (3, 3)]);
    assert_eq!(windows(2), vec![(1, 2), (3, 3)]);
    assert_eq!(windows(3), vec![]);
    assert_eq!(windows(5), vec![(2, 1)]);
    assert_eq!(seq.span_of(1), 2..5);
    assert_eq!(seq.columns_over(2), 1);
    assert_eq!(seq.columns_over(0), 4);
    assert_eq!(wide.columns_over(2), 1);
}

/// The pattern of a 5-point Laplacian on an `n × n` grid: rows of 3 to 5 entries.
fn grid(n: usize) -> spmv_reorder_sparse::CsrMatrix<()> {
    let mut entries = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let row = i * n + j;
            entries.push((row, row, ()));
            for (di, dj) in [(0, 1), (1, 0)] {
                if i + di < n && j + dj < n {
                    let next = (i + di) * n + j + dj;
                    entries.extend([(row, next, ()), (next, row, ())]);
                }
            }
        }
    }
    spmv_reorder_sparse::CsrMatrix::from_triplets(n * n, n * n, entries).unwrap()
}

#[test]
fn short_symmetric_lists_are_strided_on_cache_lines() {
    let a = grid(9);
    let seq = Parallelism::Sequential;
    let rows = Footprints::rows_of(&a);
    let codec = EntryCodec::new(rows.len());
    let strided = ColumnIndex::<u32>::mirrored(&rows, codec, seq, usize::MAX).unwrap();
    assert!(matches!(strided.lists, Lists::Strided { stride: 8, .. }));
    let inverted = ColumnIndex::<u32>::new(&rows, codec, seq);
    assert_eq!(strided, inverted);
    for c in 0..a.ncols() as u32 {
        // Two lists of 8 a line, each padded after its entries.
        let span = strided.span_of(c);
        let at = strided.entries()[span.clone()].as_ptr() as usize;
        assert_eq!(at % 32, 0, "column {c}");
        let list = strided.list(c);
        assert_eq!(list, inverted.list(c));
        assert!(strided.entries()[span.start + list.len()..span.end]
            .iter()
            .all(|&e| e == PADDING));
    }
    for limit in 0..6 {
        assert_eq!(strided.columns_over(limit), inverted.columns_over(limit));
    }
    // A search that bounds lists shorter than the stride needs their lengths: offsets.
    let bounded = ColumnIndex::<u32>::mirrored(&rows, codec, seq, 4).unwrap();
    assert!(matches!(bounded.lists, Lists::Offsets(_)));
    assert_eq!(bounded, inverted);
    // Windows of two rows, read through the rows: lists as long as the rows at most.
    let pairs = Windows::fixed(a.nrows(), 2).unwrap();
    let f = Footprints::new(&a, &pairs, seq).unwrap();
    let codec = EntryCodec::new(f.len());
    let through = ColumnIndex::<u32>::through_windows(&rows, &pairs, &f, codec, seq, 64);
    let through = through.unwrap();
    assert!(matches!(through.lists, Lists::Strided { stride: 8, .. }));
    assert_eq!(through, ColumnIndex::<u32>::new(&f, codec, seq));
    // As many windows, over one row more than the matrix has: not its rows' windows.
    let other = Windows::fixed(a.nrows() + 1, 2).unwrap();
    assert_eq!(other.len(), pairs.len());
    assert!(ColumnIndex::<u32>::through_windows(&rows, &other, &f, codec, seq, 64).is_none());
}

#[test]
fn long_or_uneven_lists_keep_their_offsets() {
    // One row of 17 entries: longer than a line.
    let star: Vec<(usize, usize, ())> = (0..17).flat_map(|j| [(0, j, ()), (j, 0, ())]).collect();
    let a = spmv_reorder_sparse::CsrMatrix::from_triplets(17, 17, star).unwrap();
    let rows = Footprints::rows_of(&a);
    let index = ColumnIndex::<u32>::mirrored(
        &rows,
        EntryCodec::new(17),
        Parallelism::Sequential,
        usize::MAX,
    );
    assert!(matches!(index.unwrap().lists, Lists::Offsets(_)));
    // Short lists that padding would more than double, in a large index.
    assert_eq!(padded_stride(8, 10_000, 20_000, usize::MAX), None);
    assert_eq!(padded_stride(7, 10_000, 70_000, usize::MAX), Some(8));
    assert_eq!(padded_stride(8, 100, 200, usize::MAX), Some(8));
    assert_eq!(padded_stride(3, 10_000, 30_000, usize::MAX), Some(4));
    assert_eq!(padded_stride(17, 10, 170, usize::MAX), None);
}

#[test]
fn codec_packs_windows_and_lengths() {
    // 4 windows: 3 bits of window (4 itself must stay below the top), 29 of length.
    let c = EntryCodec::new(4);
    assert_eq!(c.len_bits(), 29);
    let e = c.encode(3, 7);
    assert_eq!((c.window(e), e & c.len_max()), (3, 7));
    assert!(c.encode(2, 1 << 30) < c.encode(3, 0));
    // Windows that take all 32 bits leave no length: every length is looked up.
    let full = EntryCodec::new(u32::MAX as usize);
    assert_eq!(full.len_bits(), 0);
    assert_eq!(full.encode(u32::MAX - 1, 5), u32::MAX - 1);
    for windows in [
        0usize,
        1,
        2,
        3,
        1 << 20,
        (1 << 31) - 1,
        1 << 31,
        u32::MAX as usize,
    ] {
        let c = EntryCodec::new(windows);
        let last = windows.saturating_sub(1) as u32;
        assert!(c.encode(last, usize::MAX) < u32::MAX, "{windows}");
        assert_eq!(c.window(c.encode(last, usize::MAX)), last);
    }
    // A saturated length is read from the footprints.
    let a = spec_example();
    let f = Footprints::new(&a, &Windows::single_rows(4), Parallelism::Sequential).unwrap();
    let tight = EntryCodec::tight();
    assert_eq!(tight.len(tight.encode(3, 3), &f), 3);
    assert_eq!(tight.len(tight.encode(2, 0), &f), 0);
}
