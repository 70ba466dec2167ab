//! The vector half of a search: vectors stored as int8 with one scale each (a quarter of f32's
//! size; ranking by cosine is kept — see `docs/architecture.md`, "Knowledge bases", for the
//! measurement against `sqlite-vec` and f32), and the scan that scores a question's vector
//! against all of a base's, keeping the best. At 100,000 chunks of 384 values the scan reads
//! 38 MB and takes milliseconds; an approximate index would pay off only far beyond that.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::store::StoredVectors;

/// `v` as int8 values and their scale (value ≈ byte × scale); the largest magnitude maps to 127.
pub fn quantize(v: &[f32]) -> (f32, Vec<u8>) {
    let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        return (0.0, vec![0; v.len()]);
    }
    let scale = max / 127.0;
    let bytes = v
        .iter()
        .map(|x| ((x / scale).round().clamp(-127.0, 127.0) as i8) as u8)
        .collect();
    (scale, bytes)
}

/// A base's vectors held in memory for scanning.
#[derive(Clone, Debug, Default)]
pub struct VectorSet {
    width: usize,
    stored: StoredVectors,
}

/// One scored chunk, ordered by score (for the heap of the best).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Scored(f32, i64);

impl Eq for Scored {}

impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Scored {
    // Reversed: the heap's top is the worst kept, the one to drop.
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
    }
}

impl VectorSet {
    /// The vectors read from the store, each `width` long.
    pub fn new(width: usize, stored: StoredVectors) -> Self {
        Self { width, stored }
    }

    /// How many vectors it holds.
    pub fn len(&self) -> usize {
        self.stored.ids.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.stored.ids.is_empty()
    }

    /// The bytes it holds in memory (for the memory figures).
    pub fn bytes(&self) -> usize {
        self.stored.values.len() + self.stored.ids.len() * (8 + 4)
    }

    /// The `k` chunks whose vectors are closest to `query` (unit length, `width` long), best
    /// first, with their cosine similarity.
    pub fn nearest(&self, query: &[f32], k: usize) -> Vec<(i64, f32)> {
        if query.len() != self.width || k == 0 || self.width == 0 {
            return Vec::new();
        }
        // The question quantized too: an int8 × int8 dot product in i32 is what the compiler
        // turns into wide multiply-adds, several times faster than f32 × int8.
        let (q_scale, q_bytes) = quantize(query);
        let q: Vec<i16> = q_bytes.iter().map(|&b| i16::from(b as i8)).collect();
        let mut best: BinaryHeap<Scored> = BinaryHeap::with_capacity(k + 1);
        let rows = self.stored.values.chunks_exact(self.width);
        for ((row, &scale), &id) in rows.zip(&self.stored.scales).zip(&self.stored.ids) {
            let score = dot(&q, row) as f32 * scale * q_scale;
            if best.len() < k {
                best.push(Scored(score, id));
            } else if best.peek().is_some_and(|worst| score > worst.0) {
                best.pop();
                best.push(Scored(score, id));
            }
        }
        let mut out: Vec<(i64, f32)> = best.into_iter().map(|s| (s.1, s.0)).collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
}

/// The dot product of the question's values and one row.
fn dot(q: &[i16], row: &[i8]) -> i32 {
    q.iter()
        .zip(row)
        .map(|(&a, &b)| i32::from(a) * i32::from(b))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(vectors: &[Vec<f32>]) -> VectorSet {
        let mut stored = StoredVectors::default();
        for (i, v) in vectors.iter().enumerate() {
            let (scale, bytes) = quantize(v);
            stored.ids.push(i as i64 + 1);
            stored.scales.push(scale);
            stored.values.extend(bytes.iter().map(|&b| b as i8));
        }
        VectorSet::new(vectors[0].len(), stored)
    }

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn the_nearest_vectors_come_first_with_their_cosine() {
        let vs = set(&[
            unit(&[1.0, 0.0, 0.0]),
            unit(&[0.8, 0.6, 0.0]),
            unit(&[0.0, 0.0, 1.0]),
        ]);
        let found = vs.nearest(&unit(&[1.0, 0.1, 0.0]), 2);
        assert_eq!(found.iter().map(|f| f.0).collect::<Vec<_>>(), vec![1, 2]);
        assert!((found[0].1 - 0.995).abs() < 0.01, "{found:?}");
    }

    #[test]
    fn quantizing_keeps_cosine_within_a_hundredth() {
        let a = unit(
            &(0..384)
                .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
                .collect::<Vec<_>>(),
        );
        let b = unit(
            &(0..384)
                .map(|i| ((i * 53 % 97) as f32 - 48.0) / 5.0)
                .collect::<Vec<_>>(),
        );
        let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        let found = set(&[b]).nearest(&a, 1)[0].1;
        assert!((found - exact).abs() < 0.01, "{found} vs {exact}");
    }

    #[test]
    fn a_question_of_another_width_finds_nothing() {
        assert!(
            set(&[vec![1.0, 0.0]])
                .nearest(&[1.0, 0.0, 0.0], 3)
                .is_empty()
        );
    }
}
