//! Loops in an answer. A free answer that repeats one short cycle of tokens long enough ends
//! ([`looping`]). A held call whose string value loops (small models write "and it is a place
//! to live, and it is a place to live, …" into a free-text argument until the token cap, and
//! the call never closes) is taken back to its first round and its string closed: the next
//! token is the likeliest of the [`closers`] that the call grammar allows ([`pick_allowed`]).
//! A held array whose items loop (`["J♠", "J♠", "J♠", …`) is taken back into its first round,
//! where an item ends or inside a string item ([`array_close`]), and closed the same way with
//! `]` or `"]`.

use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;

/// How many tokens of one cycle repeated end a free answer (at least four rounds of it).
pub(crate) const LOOP_SPAN: usize = 96;
/// How many tokens of one cycle repeated, inside a held call's string, close the string (at
/// least four rounds of it): no argument value repeats itself that way.
pub(crate) const HELD_LOOP_SPAN: usize = 32;
/// The longest cycle of tokens the guards look for.
const MAX_CYCLE: usize = 64;

/// The period of the cycle the last tokens repeat over `span` tokens or more (at least four
/// rounds), if they do.
pub(crate) fn cycle(tokens: &[LlamaToken], span: usize) -> Option<usize> {
    let n = tokens.len();
    (1..=MAX_CYCLE).find(|&p| {
        let span = span.max(4 * p);
        n >= span && (n - span + p..n).all(|i| tokens[i] == tokens[i - p])
    })
}

/// Whether the last tokens are one short cycle repeated over [`LOOP_SPAN`] tokens or more.
pub(crate) fn looping(tokens: &[LlamaToken]) -> bool {
    cycle(tokens, LOOP_SPAN).is_some()
}

/// Where a held call whose tokens (`held`, from the call's first) loop inside a string should
/// be taken back to: the index, within `held`, after the loop's first round. `None` when the
/// call's text (`text`) is not inside a JSON string or does not loop.
pub(crate) fn held_string_loop(held: &[LlamaToken], text: &str) -> Option<usize> {
    if !in_json_string(text) {
        return None;
    }
    let p = cycle(held, HELD_LOOP_SPAN)?;
    let span = HELD_LOOP_SPAN.max(4 * p);
    Some(held.len() - span + p)
}

/// Whether `text`, a call's JSON so far, ends inside a string.
fn in_json_string(text: &str) -> bool {
    let (mut inside, mut escaped) = (false, false);
    for c in text.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if inside => escaped = true,
            '"' => inside = !inside,
            _ => {}
        }
    }
    inside
}

/// What a held call's loop is closed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Close {
    /// The string the loop is in (a quote).
    String,
    /// The array whose items loop, after an item (`]`).
    Array,
    /// The array whose items loop, inside a string item (`"]`): tokenizers often join an
    /// item's closing quote to the comma after it, so no token ends right after an item.
    ItemAndArray,
}

/// How an array whose items loop can be closed where `text`, a call's JSON so far, ends:
/// right after an item (not after a comma), or inside a string item that has some text.
pub(crate) fn array_close(text: &str) -> Option<Close> {
    let mut stack = Vec::new();
    let (mut inside, mut escaped, mut last, mut item) = (false, false, ' ', 0);
    for c in text.chars() {
        if inside {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => (inside, last) = (false, '"'),
                _ => {}
            }
            item += 1;
            continue;
        }
        match c {
            '"' => (inside, item) = (true, 0),
            '{' | '[' => stack.push(c),
            '}' | ']' => {
                stack.pop();
            }
            _ => {}
        }
        if !c.is_whitespace() && c != '"' {
            last = c;
        }
    }
    match (inside, stack.last()) {
        (true, Some('[')) if item > 0 => Some(Close::ItemAndArray),
        (false, Some('[')) if !matches!(last, '[' | ',') => Some(Close::Array),
        _ => None,
    }
}

/// Whether a token's text closes an array (`]`), or a string item and its array (`"]`) when
/// `quoted`, then only what may follow a value.
pub(crate) fn is_array_closer(piece: &str, quoted: bool) -> bool {
    let piece = if quoted {
        match piece.strip_prefix('"') {
            Some(rest) => rest,
            None => return false,
        }
    } else {
        piece
    };
    piece.strip_prefix(']').is_some_and(|rest| {
        rest.chars()
            .all(|c| matches!(c, ',' | '}' | ']' | ' ' | '\n'))
    })
}

/// Whether a token's text closes a string: a quote, then only what may follow a value.
pub(crate) fn is_closer(piece: &str) -> bool {
    piece.strip_prefix('"').is_some_and(|rest| {
        rest.chars()
            .all(|c| matches!(c, ',' | '}' | ']' | ' ' | '\n'))
    })
}

/// The likeliest of `candidates` that `sampler` (the call grammar) allows after the tokens it
/// has accepted, by `logits`; `None` when the grammar allows none of them. Only the
/// candidates are checked against the grammar, not the whole vocabulary.
pub(crate) fn pick_allowed(
    sampler: &mut LlamaSampler,
    logits: &[f32],
    candidates: &[LlamaToken],
) -> Option<LlamaToken> {
    likeliest_of(&allowed_among(sampler, logits, candidates)).map(|(token, _)| token)
}

/// The token of highest logit among `tokens` (tokens with their logits).
pub(crate) fn likeliest_of<'a>(
    tokens: impl IntoIterator<Item = &'a (LlamaToken, f32)>,
) -> Option<(LlamaToken, f32)> {
    tokens
        .into_iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .copied()
}

/// The `candidates` the sampler (a call grammar) allows, with their logits.
pub(crate) fn allowed_among(
    sampler: &mut LlamaSampler,
    logits: &[f32],
    candidates: &[LlamaToken],
) -> Vec<(LlamaToken, f32)> {
    let data = candidates.iter().filter_map(|&t| {
        let logit = *logits.get(usize::try_from(t.0).ok()?)?;
        Some(LlamaTokenData::new(t, logit, 0.0))
    });
    let mut array = LlamaTokenDataArray::from_iter(data, false);
    if array.data.is_empty() {
        return Vec::new();
    }
    array.apply_sampler(sampler);
    array
        .data
        .iter()
        .filter(|d| d.logit().is_finite())
        .map(|d| (d.id(), d.logit()))
        .collect()
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

    #[test]
    fn a_cycle_is_found_with_its_period_only_after_four_rounds_over_the_span() {
        let cycle8: Vec<i32> = (0..40).map(|i| 100 + i % 8).collect();
        assert_eq!(cycle(&tokens(&cycle8), HELD_LOOP_SPAN), Some(8));
        assert_eq!(cycle(&tokens(&cycle8[..31]), HELD_LOOP_SPAN), None);
        assert!(!looping(&tokens(&cycle8)));
    }

    #[test]
    fn a_loop_inside_a_held_string_is_taken_back_to_its_first_round() {
        let mut held: Vec<i32> = (0..10).collect();
        held.extend((0..32).map(|i| 100 + i % 8));
        let text = r#"{"name": "forecast", "arguments": {"note": "Paris is a place to live, and"#;
        assert_eq!(held_string_loop(&tokens(&held), text), Some(10 + 8));
        let closed = r#"{"name": "f", "arguments": {"days": [1, 2, 1, 2"#;
        assert_eq!(held_string_loop(&tokens(&held), closed), None);
        let escaped = r#"{"name": "f", "arguments": {"note": "say \"hi\" and"#;
        assert!(in_json_string(escaped));
    }

    #[test]
    fn an_array_closes_after_an_item_or_inside_a_string_item_but_not_after_a_comma() {
        let call = r#"{"name": "poker", "arguments": {"hand": ["J♠", "10♠""#;
        assert_eq!(array_close(call), Some(Close::Array));
        assert_eq!(array_close(&format!("{call},")), None);
        assert_eq!(
            array_close(&format!("{call}, \"K")),
            Some(Close::ItemAndArray)
        );
        assert_eq!(array_close(&format!("{call}, \"")), None);
        assert_eq!(array_close(r#"{"a": [1, {"b": 2}"#), Some(Close::Array));
        assert_eq!(array_close(r#"{"a": [1], "b": 2"#), None);
        assert_eq!(array_close(r#"{"a": [1], "b": "x"#), None);
        assert_eq!(array_close(r#"{"a": ["#), None);
        for piece in ["]", "]}", "]},", "] "] {
            assert!(is_array_closer(piece, false), "{piece}");
            assert!(is_array_closer(&format!("\"{piece}"), true), "{piece}");
        }
        assert!(!is_array_closer("],\"", false));
        assert!(!is_array_closer("]", true));
        assert!(!is_array_closer("\"]", false));
    }

    #[test]
    fn closers_are_a_quote_then_only_what_follows_a_value() {
        for piece in ["\"", "\",", "\"}", "\"]", "\"}}", "\",\n"] {
            assert!(is_closer(piece), "{piece}");
        }
        for piece in ["\"a", " \"", "x\"", "\":"] {
            assert!(!is_closer(piece), "{piece}");
        }
    }
}
