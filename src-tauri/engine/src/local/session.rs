//! One resident model's context and what is kept in it: a few KV-cache slots (one llama.cpp
//! sequence each), each holding the tokens of one conversation. A job reuses the slot whose
//! cached tokens its prompt continues, evaluates only the tokens after the common prefix, then
//! samples token by token until the end-of-generation token, the token limit, a stop text, a
//! loop or a stop request (checked before every token); what each token means for the answer
//! is decided by [`super::decode`], which may take the answer back a few tokens (a tool call
//! begins and is held to the call grammar from its first token).

use std::num::NonZeroU32;
use std::path::Path;

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::{DecodeError, LlamaCppError};

use super::LocalError;
use super::decode::{Decoder, Marks, Step, marks};
use super::job::{
    Finish, Hold, Job, ModelFacts, Piece, PieceSender, Report, RuntimeOptions, Sampling, StopFlag,
};
use super::loops::{allowed_among, pick_allowed};

/// One KV-cache sequence and the tokens it holds.
#[derive(Debug, Default)]
struct Slot {
    /// Tokens in the cache, positions 0.. in order.
    tokens: Vec<LlamaToken>,
    /// How many of them were the last job's prompt.
    prompt_len: usize,
    /// When it was last used (a job counter).
    used: u64,
}

/// The resident model's context and its slots.
pub(crate) struct Session<'m> {
    model: &'m LlamaModel,
    ctx: LlamaContext<'m>,
    slots: Vec<Slot>,
    clock: u64,
    facts: ModelFacts,
    /// What the first decisions look for in the vocabulary, found at the first held answer.
    marks: Option<Marks>,
}

fn backend_error(what: &str, e: impl std::fmt::Display) -> LocalError {
    LocalError::Backend(format!("{what}: {e}"))
}

fn pos(n: usize) -> Result<i32, LocalError> {
    i32::try_from(n).map_err(|_| LocalError::Backend(format!("position {n} is too large")))
}

impl<'m> Session<'m> {
    /// A context for `model`: its trained context size capped by the options.
    pub(crate) fn new(
        backend: &LlamaBackend,
        model: &'m LlamaModel,
        path: &Path,
        options: &RuntimeOptions,
    ) -> Result<Self, LocalError> {
        let n_ctx = model.n_ctx_train().min(options.max_context).max(256);
        let threads = options.threads.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| i32::try_from(n.get()).unwrap_or(4))
                .unwrap_or(4)
        });
        let slots = options.slots.max(1);
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(n_ctx))
            .with_n_seq_max(slots)
            .with_kv_unified(true)
            .with_n_threads(threads)
            .with_n_threads_batch(threads);
        let ctx = model
            .new_context(backend, params)
            .map_err(|e| backend_error("cannot create a context", e))?;
        let facts = facts_of(model, path, ctx.n_ctx());
        Ok(Self {
            model,
            ctx,
            slots: (0..slots).map(|_| Slot::default()).collect(),
            clock: 0,
            facts,
            marks: None,
        })
    }

    /// Runs one job, streaming its pieces to `out`; errors go to `out` too.
    pub(crate) fn run(&mut self, job: Job, out: &PieceSender) {
        let count = |text: &str| self.tokenize(text).len();
        let result = (job.render)(&self.facts, &count).and_then(|prompt| {
            let thinking = super::output::opens_thinking(&prompt.text);
            let tools = prompt.tools.clone();
            let _ = out.send(Ok(Piece::Started { thinking, tools }));
            let tokens = self.tokenize(&prompt.text);
            self.generate(&tokens, &job.sampling, prompt.hold, &job.stop, out)
        });
        let _ = match result {
            Ok(report) => out.send(Ok(Piece::Done(report))),
            Err(e) => out.send(Err(e)),
        };
    }

    /// The tokens of a rendered prompt (special tokens in the text are parsed as such; BOS
    /// added when the model wants one and the template did not write it).
    fn tokenize(&self, text: &str) -> Vec<LlamaToken> {
        let vocab = self.model.vocab();
        let starts_with_bos =
            !self.facts.bos_token.is_empty() && text.starts_with(&self.facts.bos_token);
        vocab.tokenize(text.as_bytes(), !starts_with_bos, true)
    }

    fn generate(
        &mut self,
        tokens: &[LlamaToken],
        sampling: &Sampling,
        hold: Option<Hold>,
        stop: &StopFlag,
        out: &PieceSender,
    ) -> Result<Report, LocalError> {
        let n_ctx = usize::try_from(self.ctx.n_ctx()).unwrap_or(usize::MAX);
        if tokens.is_empty() || tokens.len() >= n_ctx {
            return Err(LocalError::TooLong {
                tokens: tokens.len(),
                n_ctx: self.ctx.n_ctx(),
            });
        }
        let slot = self.pick_slot(tokens);
        let reused = self.prepare_slot(slot, tokens)?;
        self.eval(slot, &tokens[reused..], reused)?;
        self.slots[slot].prompt_len = tokens.len();
        let mut decoder = Decoder::new(sampling, hold);
        if decoder.answers_first() {
            decoder.ban_openers(self.marks.get_or_insert_with(|| marks(self.model)));
        }
        let mut sampler = decoder.sampler(self.model);
        let vocab = self.model.vocab();
        let mut generated = 0;
        let finish = loop {
            let step = if stop.is_stopped() {
                decoder.end(Finish::Stopped)
            } else if generated >= sampling.max_tokens as usize
                || self.slots[slot].tokens.len() >= n_ctx
            {
                decoder.end(Finish::Length)
            } else {
                if decoder.deciding_fence() {
                    let marks = self.marks.get_or_insert_with(|| marks(self.model));
                    if let Some(Step::Rewind { keep }) =
                        decoder.decide_fence(self.ctx.get_logits_ith(-1), marks)
                    {
                        self.rewind(slot, tokens.len() + keep)?;
                        sampler = decoder.sampler(self.model);
                    }
                }
                let opener = if decoder.deciding() {
                    let marks = self.marks.get_or_insert_with(|| marks(self.model));
                    decoder.decide(self.ctx.get_logits_ith(-1), marks)
                } else if let Some(closers) =
                    decoder.closing(self.marks.get_or_insert_with(|| marks(self.model)))
                {
                    pick_allowed(&mut sampler, self.ctx.get_logits_ith(-1), closers)
                } else {
                    None
                };
                let token = match opener {
                    Some(token) => {
                        sampler.accept(token);
                        token
                    }
                    None if decoder.between_calls() => {
                        let marks = self.marks.get_or_insert_with(|| marks(self.model));
                        held_next_or_more(&mut sampler, &self.ctx, &decoder, marks)
                    }
                    None if decoder.holding() => held_next(&mut sampler, &self.ctx),
                    None => sampler.sample(&self.ctx, -1),
                };
                if vocab.is_eog(token) {
                    decoder.end_of_generation()
                } else {
                    generated += 1;
                    decoder.push(token, &vocab.token_to_piece(token, true, None))
                }
            };
            match step {
                Step::Go(text) => {
                    if !text.is_empty() && out.send(Ok(Piece::Text(text))).is_err() {
                        break Finish::Stopped;
                    }
                    let token = decoder.token(decoder.kept() - 1);
                    let at = self.slots[slot].tokens.len();
                    self.eval(slot, &[token], at)?;
                }
                Step::Rewind { keep } => {
                    self.rewind(slot, tokens.len() + keep)?;
                    sampler = decoder.sampler(self.model);
                }
                Step::End(finish, text) => {
                    if !text.is_empty() {
                        let _ = out.send(Ok(Piece::Text(text)));
                    }
                    break finish;
                }
            }
        };
        Ok(Report {
            prompt_tokens: tokens.len(),
            reused,
            evaluated: tokens.len() - reused,
            generated,
            finish,
        })
    }

    /// Takes the slot's sequence back to its first `len` tokens, with the logits of the last
    /// one ready for sampling (it is evaluated again unless it is the last evaluated).
    fn rewind(&mut self, slot: usize, len: usize) -> Result<(), LocalError> {
        let held = self.slots[slot].tokens.len();
        if len >= held {
            return Ok(());
        }
        let last = self.slots[slot].tokens[len - 1];
        let seq = u32::try_from(slot).unwrap_or(0);
        let from = u32::try_from(len - 1).unwrap_or(u32::MAX);
        self.ctx
            .clear_kv_cache_seq(Some(seq), Some(from), None)
            .map_err(|e| backend_error("cannot take the answer back", e))?;
        self.slots[slot].tokens.truncate(len - 1);
        self.eval(slot, &[last], len - 1)
    }

    /// The slot for a prompt: one whose last prompt it continues (the longest such), else an
    /// empty one, else the least recently used.
    fn pick_slot(&mut self, tokens: &[LlamaToken]) -> usize {
        self.clock += 1;
        let continued = self
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.prompt_len > 0 && common_prefix(&s.tokens, tokens) >= s.prompt_len)
            .max_by_key(|(_, s)| s.prompt_len)
            .map(|(i, _)| i);
        let empty = || self.slots.iter().position(|s| s.tokens.is_empty());
        let oldest = || {
            self.slots
                .iter()
                .enumerate()
                .min_by_key(|(_, s)| s.used)
                .map_or(0, |(i, _)| i)
        };
        let chosen = continued.or_else(empty).unwrap_or_else(oldest);
        self.slots[chosen].used = self.clock;
        chosen
    }

    /// Drops what of the slot's cache the prompt does not share; returns the tokens kept (at
    /// most all but the prompt's last token, which is evaluated again for its logits).
    fn prepare_slot(&mut self, slot: usize, tokens: &[LlamaToken]) -> Result<usize, LocalError> {
        let keep = common_prefix(&self.slots[slot].tokens, tokens).min(tokens.len() - 1);
        let seq = u32::try_from(slot).unwrap_or(0);
        let at = u32::try_from(keep).unwrap_or(u32::MAX);
        let removed = self
            .ctx
            .clear_kv_cache_seq(Some(seq), Some(at), None)
            .map_err(|e| backend_error("cannot trim the cache", e))?;
        let keep = if removed {
            keep
        } else {
            self.ctx
                .clear_kv_cache_seq(Some(seq), None, None)
                .map_err(|e| backend_error("cannot clear the cache", e))?;
            0
        };
        self.slots[slot].tokens.truncate(keep);
        Ok(keep)
    }

    /// Evaluates `tokens` at positions `start..` of the slot's sequence (logits for the last);
    /// when the cache is full, the other slots are emptied and it is tried again.
    fn eval(&mut self, slot: usize, tokens: &[LlamaToken], start: usize) -> Result<(), LocalError> {
        let n_batch = usize::try_from(self.ctx.n_batch()).unwrap_or(512).max(1);
        for (c, chunk) in tokens.chunks(n_batch).enumerate() {
            let first = start + c * n_batch;
            let last_chunk = first + chunk.len() == start + tokens.len();
            match self.decode(slot, chunk, first, last_chunk) {
                Err(LlamaCppError::DecodeError(DecodeError::NoKvCacheSlot)) => {
                    self.evict_others(slot);
                    self.decode(slot, chunk, first, last_chunk)
                        .map_err(|e| backend_error("cannot evaluate the prompt", e))?;
                }
                other => other.map_err(|e| backend_error("cannot evaluate the prompt", e))?,
            }
            self.slots[slot].tokens.extend_from_slice(chunk);
        }
        Ok(())
    }

    fn decode(
        &mut self,
        slot: usize,
        chunk: &[LlamaToken],
        first: usize,
        logits_last: bool,
    ) -> Result<(), LlamaCppError> {
        let seq = i32::try_from(slot).unwrap_or(0);
        let mut batch = LlamaBatch::new(chunk.len(), 1);
        for (i, token) in chunk.iter().enumerate() {
            let at = pos(first + i).map_err(|_| DecodeError::Unknown(-1))?;
            batch.add(*token, at, &[seq], logits_last && i + 1 == chunk.len())?;
        }
        self.ctx.decode(&mut batch)?;
        Ok(())
    }

    fn evict_others(&mut self, keep: usize) {
        for (i, slot) in self.slots.iter_mut().enumerate() {
            if i != keep && !slot.tokens.is_empty() {
                let seq = u32::try_from(i).unwrap_or(0);
                let _ = self.ctx.clear_kv_cache_seq(Some(seq), None, None);
                *slot = Slot::default();
            }
        }
    }
}

/// How many of the likeliest tokens are checked against the grammar when the likeliest of
/// all is not allowed, before the grammar goes through the whole vocabulary.
const HELD_SHORTLIST: usize = 64;

/// A held call's next token, greedy under the call grammar. The likeliest token of all is
/// checked against the grammar alone and taken when it is allowed, as llama.cpp's own common
/// sampler does; when it is not, the [`HELD_SHORTLIST`] likeliest are, and the likeliest of
/// them the grammar allows is taken; only when none is allowed is the grammar applied to the
/// whole vocabulary (tens of thousands of tokens, the held decoding's cost). Each way it is
/// the token greedy decoding under the grammar picks: the likeliest allowed one.
fn held_next(sampler: &mut LlamaSampler, ctx: &LlamaContext<'_>) -> LlamaToken {
    let logits = ctx.get_logits_ith(-1);
    let picked = likeliest(logits, 1)
        .and_then(|best| pick_allowed(sampler, logits, &best))
        .or_else(|| {
            likeliest(logits, HELD_SHORTLIST)
                .and_then(|shortlist| pick_allowed(sampler, logits, &shortlist))
        });
    match picked {
        Some(token) => {
            sampler.accept(token);
            token
        }
        None => sampler.sample(ctx, -1),
    }
}

/// Right after a held call: another call or the end, as [`Decoder::more_calls`] chooses from
/// the [`HELD_SHORTLIST`] likeliest tokens the grammar allows ([`held_next`] when it allows
/// none of them).
fn held_next_or_more(
    sampler: &mut LlamaSampler,
    ctx: &LlamaContext<'_>,
    decoder: &Decoder,
    marks: &Marks,
) -> LlamaToken {
    let logits = ctx.get_logits_ith(-1);
    let picked = likeliest(logits, HELD_SHORTLIST)
        .map(|shortlist| allowed_among(sampler, logits, &shortlist))
        .and_then(|allowed| decoder.more_calls(&allowed, marks));
    match picked {
        Some(token) => {
            sampler.accept(token);
            token
        }
        None => held_next(sampler, ctx),
    }
}

/// The `k` tokens of highest logit (in no order), `None` when there are no logits.
fn likeliest(logits: &[f32], k: usize) -> Option<Vec<LlamaToken>> {
    let token = |i: usize| i32::try_from(i).ok().map(LlamaToken);
    if k <= 1 {
        let best = logits
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))?;
        return token(best.0).map(|t| vec![t]);
    }
    let mut ids: Vec<usize> = (0..logits.len()).collect();
    if ids.is_empty() {
        return None;
    }
    let k = k.min(ids.len());
    ids.select_nth_unstable_by(k - 1, |a, b| logits[*b].total_cmp(&logits[*a]));
    ids.truncate(k);
    Some(ids.into_iter().filter_map(token).collect())
}

/// The length of the common prefix of two token lists.
fn common_prefix(a: &[LlamaToken], b: &[LlamaToken]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// What the template needs to know of the model.
fn facts_of(model: &LlamaModel, path: &Path, n_ctx: u32) -> ModelFacts {
    let vocab = model.vocab();
    let text = |t: LlamaToken| {
        if t.0 < 0 {
            return String::new();
        }
        String::from_utf8_lossy(&vocab.token_to_piece(t, true, None)).into_owned()
    };
    ModelFacts {
        path: path.to_path_buf(),
        chat_template: model.meta_val_str("tokenizer.chat_template").ok(),
        bos_token: text(vocab.bos()),
        eos_token: text(vocab.eos()),
        n_ctx,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shortlist_of_a_held_token_is_the_likeliest_tokens() {
        let logits = [0.5, 3.0, -1.0, 2.0, f32::NEG_INFINITY, 2.5];
        assert_eq!(likeliest(&logits, 1), Some(vec![LlamaToken(1)]));
        let mut three = likeliest(&logits, 3).unwrap();
        three.sort_by_key(|t| t.0);
        assert_eq!(three, vec![LlamaToken(1), LlamaToken(3), LlamaToken(5)]);
        assert_eq!(likeliest(&logits, 100).map(|v| v.len()), Some(6));
        assert_eq!(likeliest(&[], 64), None);
        assert_eq!(likeliest(&[], 1), None);
    }
}
