//! Scratch micro-benchmark of overlap_kernel::rank on shuffled 3D-grid windows (w=1).
use spmv_reorder_sparse::overlap_kernel::{rank, OverlapLists, PADDING};
use std::time::Instant;

fn main() {
    let n = 100usize;
    let rows = n * n * n;
    // A random permutation (xorshift Fisher-Yates).
    let mut perm: Vec<u32> = (0..rows as u32).collect();
    let mut s = 0x9E3779B97F4A7C15u64;
    let mut rnd = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for i in (1..rows).rev() {
        let j = (rnd() % (i as u64 + 1)) as usize;
        perm.swap(i, j);
    }
    let id = |x: usize, y: usize, z: usize| (x * n + y) * n + z;
    let closed = |x: usize, y: usize, z: usize| {
        let mut v = vec![id(x, y, z)];
        if x > 0 {
            v.push(id(x - 1, y, z));
        }
        if x + 1 < n {
            v.push(id(x + 1, y, z));
        }
        if y > 0 {
            v.push(id(x, y - 1, z));
        }
        if y + 1 < n {
            v.push(id(x, y + 1, z));
        }
        if z > 0 {
            v.push(id(x, y, z - 1));
        }
        if z + 1 < n {
            v.push(id(x, y, z + 1));
        }
        v
    };
    let coords = |i: usize| (i / (n * n), (i / n) % n, i % n);
    let len_bits = 4u32;
    let entry = |r: usize| {
        let (x, y, z) = coords(r);
        let nh = closed(x, y, z).len() as u32;
        perm[r] << len_bits | nh
    };
    // Windows: 2048 random grid points; each has 7 (or fewer) lists padded to 8.
    let windows = 2048;
    let mut entries: Vec<u32> = Vec::new();
    let mut all_spans = Vec::new();
    let mut owns = Vec::new();
    for _ in 0..windows {
        let g = (rnd() % rows as u64) as usize;
        let (x, y, z) = coords(g);
        let cols = closed(x, y, z);
        let mut spans = Vec::new();
        for &c in &cols {
            let (cx, cy, cz) = coords(c);
            let mut list: Vec<u32> = closed(cx, cy, cz).into_iter().map(entry).collect();
            list.sort_unstable();
            list.resize(8, PADDING);
            spans.push(entries.len()..entries.len() + 8);
            entries.extend(list);
        }
        owns.push((entry(g), cols.len() as u64));
        all_spans.push(spans);
    }
    let reps: usize = std::env::args().nth(1).map_or(300, |a| a.parse().unwrap());
    let mut best = f64::MAX;
    let mut check = 0u64;
    for _ in 0..7 {
        let t = Instant::now();
        for _ in 0..reps {
            for (w, spans) in all_spans.iter().enumerate() {
                let lists = OverlapLists {
                    entries: &entries,
                    spans,
                    own: owns[w].0,
                    n_g: owns[w].1,
                    len_bits,
                    bounds: [20, 20],
                    keep: 8,
                };
                let r = rank(&lists).unwrap();
                check = check
                    .wrapping_add(r.keys[0] ^ r.keys[7] ^ r.cheapest[0] ^ r.own_overlap as u64);
            }
        }
        let ns = t.elapsed().as_secs_f64() * 1e9 / (reps * windows) as f64;
        best = best.min(ns);
    }
    println!("{best:.1} ns per window (check {check:x})");
}
