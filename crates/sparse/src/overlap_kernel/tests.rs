use super::*;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// The scalar path's result: counts in a map, keys, a sort.
fn scalar(window: &OverlapLists<'_>) -> OverlapRanking {
    let mut counts = BTreeMap::new();
    for span in window.spans {
        for &e in window.entries[span.clone()]
            .iter()
            .filter(|&&e| e != PADDING)
        {
            *counts.entry(e).or_insert(0u32) += 1;
        }
    }
    let len_max = (1u64 << window.len_bits) - 1;
    let mut keys = Vec::new();
    let mut costs = vec![window.bounds[0], window.bounds[1]];
    let mut own_overlap = 0;
    for (&e, &a) in &counts {
        if e == window.own {
            own_overlap = a;
            continue;
        }
        keys.push(((u32::MAX - a) as u64) << 32 | e.rotate_right(window.len_bits) as u64);
        costs.push(window.n_g + (e as u64 & len_max) - 2 * a as u64);
    }
    keys.sort_unstable();
    costs.sort_unstable();
    let kept = keys.len().min(window.keep);
    let mut top = [u64::MAX; MAX_KEEP];
    top[..kept].copy_from_slice(&keys[..kept]);
    OverlapRanking {
        keys: top,
        kept,
        cheapest: [costs[0], costs[1]],
        own_overlap,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn kernel_ranks_like_the_scalar_path(
        windows in 1u32..200,
        // Up to 24 lists of up to 11: four registers, eight, eight without the own entries,
        // or more than the kernel takes.
        lengths in proptest::collection::vec(0usize..12, 0..25),
        len_bits in 1u32..12,
        keep in 1usize..=MAX_KEEP,
        own_window in 0u32..200,
        seed in any::<u64>(),
        padded in any::<bool>(),
    ) {
        // Lists of entries `h << len_bits | len(h)` over few windows (so many repeats), each
        // sorted and distinct as in an index; the lengths fit `len_bits`.
        let len_of = |h: u32| (h.wrapping_mul(2654435761) >> 7) % ((1 << len_bits) - 1);
        let entry = |h: u32| h << len_bits | len_of(h);
        let mut state = seed | 1;
        let mut entries = Vec::new();
        let mut spans = Vec::new();
        for &n in &lengths {
            let mut list: Vec<u32> = (0..n)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    entry((state % windows as u64) as u32)
                })
                .collect();
            list.sort_unstable();
            list.dedup();
            if padded {
                // A fixed-stride index: every list padded to 8 (or to its length).
                list.resize(list.len().max(8), PADDING);
            }
            spans.push(entries.len()..entries.len() + list.len());
            entries.extend(list);
        }
        let own = entry(own_window % windows);
        let window = OverlapLists {
            entries: &entries,
            spans: &spans,
            own,
            // Above twice any overlap here (at most one per list), so costs stay positive.
            n_g: 64,
            len_bits,
            bounds: [66, 67],
            keep,
        };
        let work = entries.len();
        let ranked = entries.iter().filter(|&&e| e != PADDING && e != own).count();
        match rank(&window) {
            Some(fast) => prop_assert_eq!(fast, scalar(&window)),
            None => prop_assert!(
                work > MAX_WORK || (work > SORTED_WORK && ranked > SORTED_WORK) || !available()
            ),
        }
    }
}

/// Twenty lists of 7 entries and padding, each holding the window's own entry (a 3-row
/// window of a shuffled grid): 160 entries, 120 without padding and its own, so the kernel
/// takes it as the scalar path ranks it; with one more entry in each list it declines.
#[test]
fn kernel_takes_large_windows_without_their_own_entries() {
    let lists = |others: u32| -> (Vec<u32>, Vec<Range<usize>>) {
        let mut entries = Vec::new();
        let mut spans = Vec::new();
        for c in 0..20u32 {
            let start = entries.len();
            // Window 0 (own) and windows 1 + (c + k) % 30: many repeats across lists.
            let mut list: Vec<u32> = std::iter::once(0)
                .chain((0..others).map(|k| 1 + (c + 3 * k) % 30))
                .map(|h| h << 4 | 5)
                .collect();
            list.sort_unstable();
            list.dedup();
            let stride = list.len().next_multiple_of(8);
            list.resize(stride, PADDING);
            entries.extend(list);
            spans.push(start..entries.len());
        }
        (entries, spans)
    };
    let (entries, spans) = lists(6);
    let window = OverlapLists {
        entries: &entries,
        spans: &spans,
        own: 5,
        n_g: 20,
        len_bits: 4,
        bounds: [30, 30],
        keep: 8,
    };
    assert_eq!(entries.len(), 160);
    if available() {
        assert_eq!(rank(&window), Some(scalar(&window)));
    }
    let (entries, spans) = lists(7);
    assert_eq!(entries.len(), 160);
    let window = OverlapLists {
        entries: &entries,
        spans: &spans,
        ..window
    };
    assert_eq!(rank(&window), None, "140 entries other than its own");
}

#[test]
fn kernel_declines_what_it_cannot_take() {
    let entries: Vec<u32> = (0..300).collect();
    let (long, short) = ([0..150, 150..257], [0..5, 5..10]);
    let window = OverlapLists {
        entries: &entries,
        spans: &long,
        own: 0,
        n_g: 1,
        len_bits: 1,
        bounds: [2, 2],
        keep: 3,
    };
    assert_eq!(rank(&window), None);
    let window = OverlapLists {
        spans: &short,
        keep: 0,
        ..window
    };
    assert_eq!(rank(&window), None);
    let window = OverlapLists {
        keep: MAX_KEEP + 1,
        ..window
    };
    assert_eq!(rank(&window), None);
    let window = OverlapLists {
        keep: 1,
        len_bits: 32,
        ..window
    };
    assert_eq!(rank(&window), None);
    // More columns than entries: not the footprints' transpose (costs would not fit `u32`).
    let window = OverlapLists {
        len_bits: 1,
        n_g: MAX_WORK as u64 + 1,
        ..window
    };
    assert_eq!(rank(&window), None);
    if available() {
        assert!(rank(&OverlapLists { n_g: 1, ..window }).is_some());
    }
}
