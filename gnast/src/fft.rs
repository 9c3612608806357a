//! Farthest-first traversal (the greedy permutation): points ordered so
//! that each next one is the farthest from all before it. A prefix of the
//! order is the most diverse subset of its size; the tail is what is
//! redundant (GNAST's Algorithm 2).
//!
//! The order starts with the two points farthest apart, as the paper's
//! does. Each point's distance to the chosen set is kept and lowered as
//! points are chosen, so a traversal costs O(n²) distances, not O(n³).

/// Squared Euclidean distance.
pub fn dist2(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// The first `k` points of the farthest-first order of `points` (all of
/// them when `k` is larger), as indices, each with its distance to the
/// points before it (the first two: their distance to each other). Ties
/// go to the lower index, so the order is deterministic.
pub fn order(points: &[Vec<f32>], k: usize) -> Vec<(usize, f32)> {
    order_by(points.len(), k, |i, j| dist2(&points[i], &points[j]).sqrt())
}

/// [`order`] over `n` items with the distance `d`.
pub fn order_by(n: usize, k: usize, d: impl Fn(usize, usize) -> f32) -> Vec<(usize, f32)> {
    let k = k.min(n);
    if k == 0 {
        return Vec::new();
    }
    if n == 1 {
        return vec![(0, 0.0)];
    }
    let (mut a, mut b, mut best) = (0, 1, f32::NEG_INFINITY);
    for i in 0..n {
        for j in i + 1..n {
            let x = d(i, j);
            if x > best {
                (a, b, best) = (i, j, x);
            }
        }
    }
    let mut out = vec![(a, best)];
    if k == 1 {
        return out;
    }
    out.push((b, best));
    let mut near: Vec<f32> = (0..n).map(|i| d(i, a).min(d(i, b))).collect();
    let mut taken = vec![false; n];
    taken[a] = true;
    taken[b] = true;
    while out.len() < k {
        let mut pick = None;
        for i in 0..n {
            if !taken[i] && pick.is_none_or(|p: usize| near[i] > near[p]) {
                pick = Some(i);
            }
        }
        let p = pick.expect("fewer taken than points");
        taken[p] = true;
        out.push((p, near[p]));
        for i in 0..n {
            if !taken[i] {
                near[i] = near[i].min(d(i, p));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(x: f32, y: f32) -> Vec<f32> {
        vec![x, y]
    }

    #[test]
    fn the_order_starts_far_apart_and_leaves_duplicates_last() {
        // Two clusters and one outlier; the copies of a point come last.
        let pts = vec![p(0.0, 0.0), p(0.1, 0.0), p(0.0, 0.1), p(5.0, 5.0), p(5.1, 5.0), p(10.0, 0.0), p(0.0, 0.0)];
        let o = order(&pts, pts.len());
        let idx: Vec<usize> = o.iter().map(|x| x.0).collect();
        let mut first_two = idx[..2].to_vec();
        first_two.sort();
        // (0,0) and (5.1,5) or (10,0): the farthest pair is (0,*)–(10,0)?
        // Distances: (10,0)-(0,0.1) is 10.0005, the largest.
        assert_eq!(first_two, vec![2, 5]);
        // The third is the far cluster.
        assert!(idx[2] == 3 || idx[2] == 4, "{idx:?}");
        // The duplicate of an earlier point has distance 0 and comes last.
        assert_eq!(o.last().unwrap().1, 0.0);
        // Distances after the first two never grow.
        assert!(o[2..].windows(2).all(|w| w[0].1 >= w[1].1), "{o:?}");
        let mut all = idx.clone();
        all.sort();
        assert_eq!(all, (0..pts.len()).collect::<Vec<_>>());
    }

    #[test]
    fn small_and_empty_inputs() {
        assert!(order(&[], 3).is_empty());
        assert_eq!(order(&[p(1.0, 1.0)], 3), vec![(0, 0.0)]);
        assert_eq!(order(&[p(0.0, 0.0), p(3.0, 4.0), p(1.0, 0.0)], 1), vec![(0, 5.0)]);
    }
}
