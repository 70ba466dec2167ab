//! What an answer is while it is generated, apart from the KV cache (which `session.rs`
//! owns): the tokens kept and their text, what has been streamed, the sampler in use, and the
//! decisions taken token by token — pass text on, hold it while it may begin a tool call, take
//! the answer back to where a call began and go on under the call grammar ([`super::hold`]),
//! take back a call that repeats one already answered, end an answer that loops.

use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::token::logit_bias::LlamaLogitBias;

use super::grammar::Form;
use super::hold::{Hold, Scan, Watch, repeats_spent};
use super::job::{Finish, Sampling};
use super::text::{StopText, Utf8Pieces};
use crate::provider::prompt_tools::extract_tool_calls;

/// Repeated tokens are penalized over this many of the last ones (Ollama's default), outside
/// a held call.
const PENALTY_LAST_N: i32 = 64;
/// The repetition penalty (Ollama's default).
const PENALTY_REPEAT: f32 = 1.1;
/// The longest cycle of tokens the loop guard looks for.
const MAX_CYCLE: usize = 64;
/// How many tokens of one cycle repeated end the answer (at least four rounds of it).
const LOOP_SPAN: usize = 96;

/// How likely, next to the likeliest other first token, a call opener must be for the answer
/// to begin with a call ([`Decoder::decide`]); a request's `switchboard_call_ratio` overrides it.
///
/// Chosen from the built-in model's first tokens on a few hand-written questions (not the
/// benchmark's): questions a tool answers put 0.17–0.39 of the likeliest token's weight on a
/// fence, chat and general knowledge 0.007–0.02; 0.1 lies between.
pub(crate) const CALL_RATIO: f32 = 0.1;

/// What the first decisions look for in a vocabulary, each list in token order.
#[derive(Debug, Default)]
pub(crate) struct Marks {
    /// Tokens that open a call (their text, leading spaces aside, starts a fence, a JSON
    /// object or a template's call marker), with the form the call then takes.
    pub(crate) openers: Vec<(LlamaToken, Form)>,
    /// Tokens that, after a fence, name a call's language (`json`, `tool…`).
    pub(crate) call_langs: Vec<LlamaToken>,
}

/// The marks of a vocabulary.
pub(crate) fn marks(model: &LlamaModel) -> Marks {
    let vocab = model.vocab();
    let mut marks = Marks::default();
    for t in (0..model.n_vocab()).map(LlamaToken) {
        let bytes = vocab.token_to_piece(t, true, None);
        let piece = String::from_utf8_lossy(&bytes);
        if let Some(form) = opener_form(piece.trim_start()) {
            marks.openers.push((t, form));
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
        LlamaSampler::chain_simple(chain)
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
        Some(Step::Rewind { keep: 0 })
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

    /// A call began at byte `at`: the answer goes back to the token holding it.
    fn hold_from(&mut self, at: usize, form: Form) -> Step {
        let keep = self.token_at(at);
        self.rewind(keep);
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
        // What the dropped tokens passed on stays passed on (whitespace before a call, at most).
        self.sent = len;
        self.utf8 = Utf8Pieces::default();
    }
}

/// Whether the last tokens are one short cycle repeated over [`LOOP_SPAN`] tokens or more.
fn looping(tokens: &[LlamaToken]) -> bool {
    let n = tokens.len();
    (1..=MAX_CYCLE).any(|p| {
        let span = LOOP_SPAN.max(4 * p);
        n >= span && (n - span + p..n).all(|i| tokens[i] == tokens[i - p])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(ids: &[i32]) -> Vec<LlamaToken> {
        ids.iter().map(|&i| LlamaToken(i)).collect()
    }

    #[test]
    fn a_short_cycle_repeated_long_enough_is_a_loop_and_varied_text_is_not() {
        let cycle: Vec<i32> = (0..96).map(|i| [7, 8, 9][i % 3]).collect();
        assert!(looping(&tokens(&cycle)));
        assert!(!looping(&tokens(&cycle[..90])));
        let varied: Vec<i32> = (0..400).collect();
        assert!(!looping(&tokens(&varied)));
        let sentence: Vec<i32> = (0..200).map(|i| i % 40).collect();
        assert!(looping(&tokens(&sentence)));
    }

    fn step_text(d: &mut Decoder, pieces: &[&str]) -> (String, Vec<Step>) {
        let mut out = String::new();
        let mut steps = Vec::new();
        for (i, p) in pieces.iter().enumerate() {
            let step = d.push(LlamaToken(i as i32 + 100), p.as_bytes());
            if let Step::Go(t) = &step {
                out.push_str(t);
            }
            steps.push(step);
        }
        (out, steps)
    }

    fn hold() -> Hold {
        Hold {
            grammar: "root ::= \"x\"".into(),
            names: vec!["weather".into()],
            ..Default::default()
        }
    }

    #[test]
    fn prose_streams_and_a_call_taken_back_to_its_first_token_is_held_silently() {
        let mut d = Decoder::new(&Sampling::default(), Some(hold()));
        let (out, steps) = step_text(&mut d, &["Let me", " check", ". {\"", "tool\""]);
        assert_eq!(out, "Let me check. ");
        assert_eq!(steps[3], Step::Rewind { keep: 2 });
        assert_eq!(d.kept(), 2);
        // Under the grammar, nothing is streamed until the call ends.
        let (out, _) = step_text(&mut d, &[" {\"tool\": \"weather\"", ", \"arguments\": {}}"]);
        assert_eq!(out, "");
        let Step::End(Finish::Eos, rest) = d.end_of_generation() else {
            panic!("the call ends the answer");
        };
        assert_eq!(rest, " {\"tool\": \"weather\", \"arguments\": {}}");
    }

    #[test]
    fn a_call_repeating_an_answered_one_is_taken_back_and_its_first_token_banned() {
        let mut h = hold();
        h.spent = vec![("weather".into(), serde_json::json!({ "city": "Rome" }))];
        let mut d = Decoder::new(&Sampling::default(), Some(h));
        let (_, steps) = step_text(&mut d, &["{\"tool\""]);
        assert_eq!(steps, vec![Step::Rewind { keep: 0 }]);
        step_text(
            &mut d,
            &["{\"tool\": \"weather\", \"arguments\": {\"city\": \"Rome\"}}"],
        );
        assert_eq!(d.end_of_generation(), Step::Rewind { keep: 0 });
        assert_eq!(d.banned, tokens(&[100]));
        let (out, _) = step_text(&mut d, &["It is 20 C in Rome."]);
        assert_eq!(out, "It is 20 C in Rome.");
    }

    #[test]
    fn the_first_token_is_a_call_opener_when_openers_weigh_enough_and_not_otherwise() {
        let marks = Marks {
            openers: vec![
                (LlamaToken(3), Form::Fenced),
                (LlamaToken(4), Form::Fenced),
                (LlamaToken(7), Form::Bare),
            ],
            call_langs: vec![LlamaToken(5)],
        };
        // Token 0 is the likeliest prose; the fences together weigh 0.6 of it.
        let ln = |p: f32| p.ln();
        let mut logits = vec![ln(0.01); 10];
        logits[0] = ln(1.0);
        logits[3] = ln(0.3);
        logits[4] = ln(0.3);
        logits[7] = ln(0.2);
        let mut d = Decoder::new(&Sampling::default(), Some(hold()));
        assert!(d.deciding());
        assert_eq!(d.decide(&logits, &marks), Some(LlamaToken(3)));
        assert!(!d.deciding());
        // The fence's language: json weighs 0.2 of python (token 0) → a call from the start.
        assert_eq!(d.push(LlamaToken(3), b"```"), Step::Go(String::new()));
        assert!(d.deciding_fence());
        logits[5] = ln(0.2);
        assert_eq!(
            d.decide_fence(&logits, &marks),
            Some(Step::Rewind { keep: 0 })
        );
        assert_eq!(d.held, Some((0, Form::Fenced)));
        // Once a call of this turn has been answered, the opener must be the likeliest token.
        let mut answered = hold();
        answered.spent = vec![("weather".into(), serde_json::json!({}))];
        let mut d = Decoder::new(&Sampling::default(), Some(answered));
        assert_eq!(d.decide(&logits, &marks), None);
        logits[3] = ln(0.02);
        logits[4] = ln(0.02);
        logits[7] = ln(0.05);
        let mut d = Decoder::new(&Sampling::default(), Some(hold()));
        assert_eq!(d.decide(&logits, &marks), None);
        assert!(!Decoder::new(&Sampling::default(), None).deciding());
    }

    #[test]
    fn after_this_turns_results_in_prompt_mode_the_answer_begins_in_prose() {
        let marks = Marks {
            openers: vec![(LlamaToken(3), Form::Fenced)],
            call_langs: Vec::new(),
        };
        let mut h = hold();
        h.answer_first = true;
        let mut d = Decoder::new(&Sampling::default(), Some(h));
        assert!(d.answers_first() && !d.deciding());
        d.ban_openers(&marks);
        assert_eq!(d.banned, vec![LlamaToken(3)]);
        assert!(!d.answers_first());
        d.push(LlamaToken(0), b"It");
        assert!(d.banned.is_empty(), "only the first token is held to prose");
    }

    #[test]
    fn a_fence_for_code_goes_on_as_code() {
        let marks = Marks {
            openers: vec![(LlamaToken(3), Form::Fenced)],
            call_langs: vec![LlamaToken(5)],
        };
        let mut logits = vec![(0.01_f32).ln(); 10];
        logits[0] = 0.0;
        logits[3] = 0.0;
        let mut d = Decoder::new(&Sampling::default(), Some(hold()));
        assert_eq!(d.decide(&logits, &marks), Some(LlamaToken(3)));
        d.push(LlamaToken(3), b"```");
        assert_eq!(d.decide_fence(&logits, &marks), None);
        assert_eq!(d.held, None);
    }

    #[test]
    fn a_held_answer_that_writes_the_same_call_again_ends_after_the_first() {
        let mut h = hold();
        h.forced = Some(Form::Fenced);
        let mut d = Decoder::new(&Sampling::default(), Some(h));
        let block = "```json\n{\"tool\": \"weather\", \"arguments\": {\"city\": \"Rome\"}}";
        let (out, steps) = step_text(&mut d, &[block, "\n```\n\n", block]);
        assert_eq!(out, "");
        assert_eq!(steps[2], Step::End(Finish::Eos, block.to_owned()));
    }

    #[test]
    fn a_stop_text_ends_the_answer_before_it() {
        let sampling = Sampling {
            stop: vec!["END".into()],
            ..Sampling::default()
        };
        let mut d = Decoder::new(&sampling, None);
        let (out, steps) = step_text(&mut d, &["one two E", "ND three"]);
        assert_eq!(out, "one two ");
        assert!(matches!(steps[1], Step::End(Finish::StopText, _)));
    }
}
