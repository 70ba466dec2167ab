//! What an answer is while it is generated, apart from the KV cache (which `session.rs`
//! owns): the tokens kept and their text, what has been streamed, the sampler in use, and the
//! decisions taken token by token — pass text on, hold it while it may begin a tool call, take
//! the answer back to where a call began and go on under the call grammar ([`super::hold`]),
//! after a held call begin another or end, take back a call that repeats one already
//! answered, end an answer that loops.

use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::token::logit_bias::LlamaLogitBias;

use super::grammar::Form;
use super::hold::{Hold, Scan, Watch, repeats_spent};
use super::job::{Finish, Sampling};
use super::loops::{
    Close, HELD_LOOP_SPAN, array_close, cycle, held_string_loop, is_array_closer, is_closer,
    likeliest_of, looping,
};
use super::text::{StopText, Utf8Pieces};
use crate::provider::prompt_tools::extract_tool_calls;

/// Repeated tokens are penalized over this many of the last ones (Ollama's default), outside
/// a held call.
const PENALTY_LAST_N: i32 = 64;
/// The repetition penalty (Ollama's default).
const PENALTY_REPEAT: f32 = 1.1;

/// How likely, next to the likeliest other first token, a call opener must be for the answer
/// to begin with a call ([`Decoder::decide`]); a request's `switchboard_call_ratio` overrides it.
///
/// Chosen from the built-in model's first tokens on a few hand-written questions (not the
/// benchmark's): questions a tool answers put 0.17–0.39 of the likeliest token's weight on a
/// fence, chat and general knowledge 0.007–0.02; 0.1 lies between.
pub(crate) const CALL_RATIO: f32 = 0.1;

/// How likely, next to the likeliest token the grammar allows, a token that begins another
/// call must be, right after a held call, for the answer to go on with another call
/// ([`Decoder::more_calls`]): small models asked about two cities put a few percent of the
/// weight on a second call and close the block otherwise.
///
/// Chosen on BFCL's `live_parallel` and `live_parallel_multiple` (40 cases; the checker's
/// `parallel` is never tuned on): none / 0.3 / 0.1 / 0.03 gave 0 / 0 / 0 / 6.2 % and 0 / 0 /
/// 0 / 4.2 %, while `live_simple` and `live_irrelevance` stayed at 16 % and 46 % at 0.03.
pub(crate) const MORE_CALLS_RATIO: f32 = 0.03;

/// How many looping strings one answer's held calls may have closed before a loop ends it.
const MAX_LOOP_BREAKS: u8 = 3;

/// What the first decisions look for in a vocabulary, each list in token order.
#[derive(Debug, Default)]
pub(crate) struct Marks {
    /// Tokens that open a call (their text, leading spaces aside, starts a fence, a JSON
    /// object or a template's call marker), with the form the call then takes.
    pub(crate) openers: Vec<(LlamaToken, Form)>,
    /// Tokens that, after a fence, name a call's language (`json`, `tool…`).
    pub(crate) call_langs: Vec<LlamaToken>,
    /// Tokens that close a string ([`is_closer`]), for a held call's looping string.
    pub(crate) closers: Vec<LlamaToken>,
    /// Tokens that close an array ([`is_array_closer`]), for a held array whose items loop.
    pub(crate) array_closers: Vec<LlamaToken>,
    /// Tokens that close a string item and its array (`"]`…).
    pub(crate) item_array_closers: Vec<LlamaToken>,
    /// Tokens that, between held calls, begin another (`{`, `,`…).
    pub(crate) continuers: Vec<LlamaToken>,
}

/// The marks of a vocabulary.
pub(crate) fn marks(model: &LlamaModel) -> Marks {
    let vocab = model.vocab();
    let mut marks = Marks::default();
    for t in (0..model.n_vocab()).map(LlamaToken) {
        let bytes = vocab.token_to_piece(t, true, None);
        let piece = String::from_utf8_lossy(&bytes);
        let trimmed = piece.trim_start();
        if trimmed.starts_with('{') || trimmed.starts_with(',') {
            marks.continuers.push(t);
        }
        if let Some(form) = opener_form(trimmed) {
            marks.openers.push((t, form));
        }
        if is_closer(&piece) {
            marks.closers.push(t);
        }
        if is_array_closer(&piece, false) {
            marks.array_closers.push(t);
        }
        if is_array_closer(&piece, true) {
            marks.item_array_closers.push(t);
        }
        let lower = piece.to_ascii_lowercase();
        if !lower.is_empty() && (lower.starts_with("json") || lower.starts_with("tool")) {
            marks.call_langs.push(t);
        }
    }
    marks
}

/// The summed weight of `set` (sorted) in `logits`, its likeliest token, and the weight of the
/// likeliest token outside it (weights relative to the likeliest token overall).
fn weigh(logits: &[f32], set: &[LlamaToken]) -> (f32, Option<LlamaToken>, f32) {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let (mut sum, mut best, mut best_p, mut other) = (0.0, None, 0.0, 0.0_f32);
    for (i, logit) in logits.iter().enumerate() {
        let t = LlamaToken(i32::try_from(i).unwrap_or(i32::MAX));
        let p = (logit - max).exp();
        if set.binary_search(&t).is_ok() {
            sum += p;
            if p > best_p {
                (best, best_p) = (Some(t), p);
            }
        } else {
            other = other.max(p);
        }
    }
    (sum, best, other)
}

fn opener_form(piece: &str) -> Option<Form> {
    if piece.starts_with("```") {
        Some(Form::Fenced)
    } else if piece.starts_with('{') {
        Some(Form::Bare)
    } else if piece.starts_with("<tool_call>") {
        Some(Form::Tagged)
    } else if piece.starts_with("[TOOL_CALLS]") {
        Some(Form::Mistral)
    } else if piece.starts_with("<|python_tag|>") {
        Some(Form::Python)
    } else {
        None
    }
}

/// What to do after a token.
#[derive(Debug, PartialEq)]
pub(crate) enum Step {
    /// Stream this text (maybe empty) and evaluate the token.
    Go(String),
    /// Drop the generated tokens from index `keep` on (the token just sampled included) and
    /// sample again at that position with [`Decoder::sampler`].
    Rewind {
        /// How many generated tokens stay.
        keep: usize,
    },
    /// The answer ends for this reason, after this text.
    End(Finish, String),
}

/// The state of one answer.
pub(crate) struct Decoder {
    sampling: Sampling,
    hold: Option<Hold>,
    /// Watching for a call to begin (the model chooses); `None` once held or when not held.
    watch: Option<Watch>,
    /// A held call began at this byte of the answer, in this form.
    held: Option<(usize, Form)>,
    /// The kept token the held call began at.
    held_token: usize,
    /// A held string or array looped and was taken back: the next token closes it when it can.
    closing: Option<Close>,
    /// How many looping strings this answer's held calls had closed.
    loop_breaks: u8,
    /// The generated tokens kept, and the answer's length after each.
    tokens: Vec<LlamaToken>,
    ends: Vec<usize>,
    answer: String,
    /// Bytes of `answer` passed to `stop_text`.
    sent: usize,
    utf8: Utf8Pieces,
    stop_text: StopText,
    /// Tokens that may not be sampled next (the first of a call taken back).
    banned: Vec<LlamaToken>,
    /// Whether the first token's choice between answering and calling is still to be made.
    deciding: bool,
    /// The first decision opened a fence; its language decides between a call and code.
    fence_open: bool,
    /// The first token may not open a call ([`Hold::answer_first`]).
    answer_first: bool,
    call_ratio: f32,
    /// The held calls complete so far, and the answer's length after the last of them.
    held_calls: usize,
    held_cut: usize,
}

impl Decoder {
    /// The decoder for one answer.
    pub(crate) fn new(sampling: &Sampling, hold: Option<Hold>) -> Self {
        let forced = hold.as_ref().and_then(|h| h.forced);
        Self {
            deciding: hold.as_ref().is_some_and(|h| !h.answer_first) && forced.is_none(),
            answer_first: hold
                .as_ref()
                .is_some_and(|h| h.answer_first && forced.is_none()),
            fence_open: false,
            call_ratio: hold.as_ref().map_or(CALL_RATIO, |h| {
                let ratio = h.call_ratio.unwrap_or(CALL_RATIO);
                if h.spent.is_empty() {
                    ratio
                } else {
                    ratio.max(1.0)
                }
            }),
            held_calls: 0,
            held_cut: 0,
            held_token: 0,
            closing: None,
            loop_breaks: 0,
            stop_text: StopText::new(sampling.stop.clone()),
            sampling: sampling.clone(),
            watch: hold
                .as_ref()
                .filter(|_| forced.is_none())
                .map(|_| Watch::default()),
            held: forced.map(|f| (0, f)),
            hold,
            tokens: Vec::new(),
            ends: Vec::new(),
            answer: String::new(),
            sent: 0,
            utf8: Utf8Pieces::default(),
            banned: Vec::new(),
        }
    }

    /// The sampler for the next token: the call grammar's root and greedy while a call is
    /// held, else the free chain (repetition penalty, banned tokens) then greedy, or top-p,
    /// temperature and a seeded draw. A grammar llama.cpp refuses lets the call go on unheld (it is checked after the call
    /// like any other), with a log line.
    pub(crate) fn sampler(&mut self, model: &LlamaModel) -> LlamaSampler {
        let mut chain = Vec::new();
        let grammar = match (&self.held, &self.hold) {
            (Some((_, form)), Some(hold)) => {
                Some(LlamaSampler::grammar(model, &hold.grammar, form.root()))
            }
            _ => None,
        };
        match grammar {
            Some(Ok(g)) => chain.push(g),
            Some(Err(e)) => {
                tracing::warn!(error = %e, "the call grammar was refused; the call is not held");
                self.hold = None;
                self.held = None;
            }
            None => {}
        }
        if self.held.is_none() {
            let n_vocab = model.n_vocab();
            if !self.banned.is_empty() {
                let bans: Vec<LlamaLogitBias> = self
                    .banned
                    .iter()
                    .map(|t| LlamaLogitBias::new(*t, f32::NEG_INFINITY))
                    .collect();
                chain.push(LlamaSampler::logit_bias(n_vocab, &bans));
            }
            chain.push(LlamaSampler::penalties(
                n_vocab,
                PENALTY_LAST_N,
                PENALTY_REPEAT,
                0.0,
                0.0,
            ));
        }
        let s = &self.sampling;
        // A held call is decoded greedily: its likeliest name and arguments, not a draw.
        if s.temperature <= 0.0 || self.held.is_some() {
            chain.push(LlamaSampler::greedy());
        } else {
            if s.top_p < 1.0 {
                chain.push(LlamaSampler::top_p(s.top_p, 1));
            }
            chain.push(LlamaSampler::temp(s.temperature));
            chain.push(LlamaSampler::dist(s.seed));
        }
        let mut sampler = LlamaSampler::chain_simple(chain);
        // Taken back inside a held call: the grammar reads again what the call kept.
        if self.held.is_some() {
            sampler.accept_many(&self.tokens[self.held_token.min(self.tokens.len())..]);
        }
        sampler
    }

    /// Whether a call is held: the next token is the likeliest the call grammar allows.
    pub(crate) fn holding(&self) -> bool {
        self.held.is_some()
    }

    /// The tokens the next one should be picked from ([`pick_allowed`]): the closers of a held
    /// string or array that looped; `None` otherwise.
    ///
    /// [`pick_allowed`]: super::loops::pick_allowed
    pub(crate) fn closing<'m>(&self, marks: &'m Marks) -> Option<&'m [LlamaToken]> {
        self.closing.map(|close| match close {
            Close::String => &marks.closers[..],
            Close::Array => &marks.array_closers[..],
            Close::ItemAndArray => &marks.item_array_closers[..],
        })
    }

    /// Whether the first token must begin prose: then [`Decoder::ban_openers`] and a new
    /// sampler.
    pub(crate) fn answers_first(&self) -> bool {
        self.answer_first && self.tokens.is_empty()
    }

    /// Bans the call openers for the next token.
    pub(crate) fn ban_openers(&mut self, marks: &Marks) {
        self.answer_first = false;
        self.banned.extend(marks.openers.iter().map(|(t, _)| *t));
    }

    /// Whether the first token is still to be chosen between answering and calling.
    pub(crate) fn deciding(&self) -> bool {
        self.deciding && self.tokens.is_empty()
    }

    /// The first decision, from the first token's `logits`: when the openers of one form
    /// together are at least the call ratio ([`CALL_RATIO`]) as likely as the likeliest other
    /// token, the answer begins with the likeliest of them, which is returned; the model then
    /// writes on freely, and a call it begins is held ([`Watch`]). Small models that would
    /// call put real weight on a call's opener even when prose wins by a little; one that is
    /// chatting puts almost none; a fence opened for code goes on as code. Once this turn's
    /// calls have been answered, an opener must be the likeliest token (ratio 1): the model
    /// answers unless it clearly calls again.
    pub(crate) fn decide(&mut self, logits: &[f32], marks: &Marks) -> Option<LlamaToken> {
        self.deciding = false;
        // The form whose openers weigh most, then those openers against every other token.
        let forms = [
            Form::Fenced,
            Form::Bare,
            Form::Tagged,
            Form::Mistral,
            Form::Python,
        ];
        let (form, (open, token, other)) = forms
            .into_iter()
            .map(|f| {
                let set: Vec<LlamaToken> = marks
                    .openers
                    .iter()
                    .filter(|(_, of)| *of == f)
                    .map(|(t, _)| *t)
                    .collect();
                (f, set)
            })
            .filter(|(_, set)| !set.is_empty())
            .map(|(f, set)| {
                let all: Vec<LlamaToken> = marks.openers.iter().map(|(t, _)| *t).collect();
                let (open, token, _) = weigh(logits, &set);
                let (_, _, other) = weigh(logits, &all);
                (f, (open, token, other))
            })
            .max_by(|a, b| a.1.0.total_cmp(&b.1.0))?;
        tracing::debug!(?form, open, other, "the first token: answer or call");
        let token = token.filter(|_| open >= self.call_ratio * other)?;
        self.fence_open = form == Form::Fenced;
        Some(token)
    }

    /// Whether the answer is a fence the first decision opened, its language still to come.
    pub(crate) fn deciding_fence(&self) -> bool {
        self.fence_open && self.tokens.len() == 1
    }

    /// The second decision, after a fence the first one opened: when the tokens that name a
    /// call's language (`json`, `tool_call`) weigh at least the call ratio of the likeliest
    /// other token, the answer is a call, held from its first token; else the fence goes on
    /// (code, say).
    pub(crate) fn decide_fence(&mut self, logits: &[f32], marks: &Marks) -> Option<Step> {
        self.fence_open = false;
        let (call, _, other) = weigh(logits, &marks.call_langs);
        tracing::debug!(call, other, "the fence: a call or code");
        if call < self.call_ratio * other {
            return None;
        }
        self.rewind(0);
        self.watch = None;
        self.held = Some((0, Form::Fenced));
        self.held_token = 0;
        Some(Step::Rewind { keep: 0 })
    }

    /// Whether a held call has just ended (nothing but white space after it): the model may
    /// write another or close ([`Decoder::more_calls`]).
    pub(crate) fn between_calls(&self) -> bool {
        self.held.is_some()
            && self.held_calls > 0
            && self
                .answer
                .get(self.held_cut..)
                .is_some_and(|rest| rest.trim().is_empty())
    }

    /// Between held calls, of the tokens the grammar `allowed` (with their logits): the
    /// likeliest that begins another call when it weighs at least [`MORE_CALLS_RATIO`] of the
    /// likeliest allowed token, else the likeliest allowed token; `None` when none is allowed.
    pub(crate) fn more_calls(
        &self,
        allowed: &[(LlamaToken, f32)],
        marks: &Marks,
    ) -> Option<LlamaToken> {
        let best = likeliest_of(allowed)?;
        let more = likeliest_of(
            allowed
                .iter()
                .filter(|(t, _)| marks.continuers.binary_search(t).is_ok()),
        );
        tracing::debug!(?best, ?more, "after a held call: another or the end");
        Some(match more {
            Some((token, logit)) if (logit - best.1).exp() >= MORE_CALLS_RATIO => token,
            _ => best.0,
        })
    }

    /// How many generated tokens are kept.
    pub(crate) fn kept(&self) -> usize {
        self.tokens.len()
    }

    /// The kept generated token at `i`.
    pub(crate) fn token(&self, i: usize) -> LlamaToken {
        self.tokens[i]
    }

    /// A sampled token and its bytes.
    pub(crate) fn push(&mut self, token: LlamaToken, bytes: &[u8]) -> Step {
        self.tokens.push(token);
        self.banned.clear();
        self.closing = None;
        self.answer.push_str(&self.utf8.push(bytes));
        self.ends.push(self.answer.len());
        let safe = match self.watch.as_mut().map(|w| w.scan(&self.answer)) {
            Some(Scan::Call { at, form }) => return self.hold_from(at, form),
            Some(Scan::Free(n)) => n,
            None if self.held.is_some() => self.sent,
            None => self.answer.len(),
        };
        if bytes.contains(&b'}') && self.repeats_in_held() {
            tracing::info!("the model wrote the same call twice; the answer ends at the first");
            self.answer.truncate(self.held_cut);
            return self.end(Finish::Eos);
        }
        if let Some((keep, close)) = self.held_loop() {
            tracing::info!(keep, ?close, "a held call loops; taken back and closed");
            self.rewind(keep);
            self.closing = Some(close);
            self.loop_breaks += 1;
            return Step::Rewind { keep };
        }
        if looping(&self.tokens) {
            tracing::info!(
                tokens = self.tokens.len(),
                "the answer repeats itself; ended"
            );
            return self.end(Finish::Repeating);
        }
        let (ready, hit) = self.stop_text.push(&self.answer[self.sent..safe]);
        self.sent = safe;
        if hit {
            Step::End(Finish::StopText, ready)
        } else {
            Step::Go(ready)
        }
    }

    /// The model ended its answer: a held call that repeats one already answered is taken
    /// back (its first token banned) so that the model answers instead.
    pub(crate) fn end_of_generation(&mut self) -> Step {
        if let (Some((at, _)), Some(hold)) = (self.held, &self.hold)
            && at < self.answer.len()
            && repeats_spent(&self.answer[at..], hold)
        {
            tracing::info!("the model called a tool again with the same arguments; taken back");
            let keep = self.token_at(at);
            let first = self.tokens.get(keep).copied();
            self.rewind(keep);
            self.held = None;
            self.hold = None;
            self.banned.extend(first);
            return Step::Rewind { keep };
        }
        self.end(Finish::Eos)
    }

    /// The answer ends for `finish`: everything held is passed on.
    pub(crate) fn end(&mut self, finish: Finish) -> Step {
        let rest = self.utf8.finish();
        self.answer.push_str(&rest);
        if let Some((at, form)) = self.held {
            tracing::debug!(
                ?form,
                call = &self.answer[at.min(self.answer.len())..],
                "held"
            );
        }
        let (mut ready, hit) = self.stop_text.push(&self.answer[self.sent..]);
        self.sent = self.answer.len();
        if hit {
            return Step::End(Finish::StopText, ready);
        }
        ready.push_str(&self.stop_text.finish(""));
        Step::End(finish, ready)
    }

    /// Whether the held answer's newest complete call repeats one before it in this answer
    /// (small models write the same block again and again); notes the calls otherwise.
    fn repeats_in_held(&mut self) -> bool {
        let (Some((at, _)), Some(hold)) = (self.held, &self.hold) else {
            return false;
        };
        let names: Vec<&str> = hold.names.iter().map(String::as_str).collect();
        let calls = extract_tool_calls(&self.answer[at.min(self.answer.len())..], &names).calls;
        if calls.len() <= self.held_calls {
            return false;
        }
        let (newest, before) = calls
            .split_last()
            .map_or((None, &[][..]), |(n, b)| (Some(n), b));
        let repeated = newest.is_some_and(|n| {
            before
                .iter()
                .any(|c| c.name == n.name && c.arguments == n.arguments)
        });
        if !repeated {
            self.held_calls = calls.len();
            self.held_cut = self.answer.len();
        }
        repeated
    }

    /// Where to take a held call back to when it loops, and what to close there (at most
    /// [`MAX_LOOP_BREAKS`] times an answer): an array whose items repeat, in the loop's first
    /// round where it can be closed ([`array_close`]); a string that repeats itself, after its
    /// first round.
    fn held_loop(&self) -> Option<(usize, Close)> {
        let (at, _) = self.held?;
        if self.loop_breaks >= MAX_LOOP_BREAKS {
            return None;
        }
        let from = self.held_token.min(self.tokens.len());
        let at = at.min(self.answer.len());
        let p = cycle(&self.tokens[from..], HELD_LOOP_SPAN)?;
        let round_end = self.tokens.len() - HELD_LOOP_SPAN.max(4 * p) + p;
        let in_array = (round_end + 1 - p..=round_end).rev().find_map(|k| {
            array_close(&self.answer[at..self.ends[k - 1].max(at)]).map(|close| (k, close))
        });
        if in_array.is_some() {
            return in_array;
        }
        held_string_loop(&self.tokens[from..], &self.answer[at..])
            .map(|k| (from + k, Close::String))
    }

    /// A call began at byte `at`: the answer goes back to the token holding it.
    fn hold_from(&mut self, at: usize, form: Form) -> Step {
        let keep = self.token_at(at);
        self.rewind(keep);
        self.held_token = keep;
        self.watch = None;
        self.held = Some((self.answer.len(), form));
        Step::Rewind { keep }
    }

    /// The index of the kept token whose text holds byte `at`.
    fn token_at(&self, at: usize) -> usize {
        self.ends
            .iter()
            .position(|&end| end > at)
            .unwrap_or(self.ends.len().saturating_sub(1))
    }

    fn rewind(&mut self, keep: usize) {
        self.tokens.truncate(keep);
        self.ends.truncate(keep);
        let len = self.ends.last().copied().unwrap_or(0);
        self.answer.truncate(len);
        // What the dropped tokens passed on stays passed on (whitespace before a call, at most);
        // a held call's text was never passed on.
        self.sent = self.sent.min(len);
        self.utf8 = Utf8Pieces::default();
    }
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
