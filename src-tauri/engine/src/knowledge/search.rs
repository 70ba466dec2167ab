//! One search of a knowledge base: the keyword ranking (FTS5 BM25) and the vector ranking
//! (cosine over the base's vectors) fused by reciprocal rank — each chunk scores
//! Σ 1 / (60 + rank) over the rankings it is in — so a chunk both find comes first, and an
//! exact term (a name, an error code, a Chinese word) still surfaces when the embedder misses
//! it. Either ranking alone is what [`Mode`] asks for the benchmark.

use std::collections::HashMap;

use super::KnowledgeError;
use super::keywords::match_expression;
use super::vectors::VectorSet;
use crate::store::Store;

/// Reciprocal rank fusion's constant (Cormack et al. 2009).
const RRF_K: f32 = 60.0;

/// How deep each ranking is read before fusing.
pub const DEPTH: usize = 50;

/// Which rankings a search uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// Both, fused.
    #[default]
    Hybrid,
    /// The keyword index alone.
    Keywords,
    /// The vectors alone.
    Vectors,
}

/// The chunk ids of the best `count` for a question, best first, with their fused scores.
pub async fn rank(
    store: &Store,
    base: i64,
    question: &str,
    query_vector: Option<&[f32]>,
    vectors: Option<&VectorSet>,
    mode: Mode,
    count: usize,
) -> Result<Vec<(i64, f32)>, KnowledgeError> {
    let mut rankings: Vec<Vec<i64>> = Vec::new();
    if mode != Mode::Vectors
        && let Some(expression) = match_expression(question)
    {
        let found = store
            .knowledge_keyword_search(base, &expression, DEPTH.max(count))
            .await?;
        rankings.push(found.into_iter().map(|(id, _)| id).collect());
    }
    if mode != Mode::Keywords
        && let (Some(query), Some(vectors)) = (query_vector, vectors)
    {
        let found = vectors.nearest(query, DEPTH.max(count));
        rankings.push(found.into_iter().map(|(id, _)| id).collect());
    }
    Ok(fuse(&rankings, count))
}

/// Reciprocal rank fusion of `rankings`, the best `count`.
pub fn fuse(rankings: &[Vec<i64>], count: usize) -> Vec<(i64, f32)> {
    let mut scores: HashMap<i64, f32> = HashMap::new();
    for ranking in rankings {
        for (rank, id) in ranking.iter().enumerate() {
            *scores.entry(*id).or_default() += 1.0 / (RRF_K + rank as f32 + 1.0);
        }
    }
    let mut fused: Vec<(i64, f32)> = scores.into_iter().collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    fused.truncate(count);
    fused
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_both_rankings_find_comes_before_one_that_tops_only_one() {
        let fused = fuse(&[vec![1, 2, 3], vec![4, 2, 5]], 3);
        assert_eq!(fused[0].0, 2);
        assert_eq!(fused.len(), 3);
    }

    #[test]
    fn one_ranking_keeps_its_order() {
        let fused = fuse(&[vec![7, 3, 9]], 10);
        assert_eq!(fused.iter().map(|f| f.0).collect::<Vec<_>>(), vec![7, 3, 9]);
    }
}
