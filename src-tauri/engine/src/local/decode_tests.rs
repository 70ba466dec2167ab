//! The decoder's decisions token by token, on made-up tokens and logits (no model).

use super::*;

fn tokens(ids: &[i32]) -> Vec<LlamaToken> {
    ids.iter().map(|&i| LlamaToken(i)).collect()
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

/// A decoder holding a bare call from its first token.
fn forced() -> Decoder {
    let mut h = hold();
    h.forced = Some(Form::Bare);
    Decoder::new(&Sampling::default(), Some(h))
}

/// Marks with one closer of each kind: a string's 99, an array's 98, an item's and array's 97.
fn loop_closers() -> Marks {
    Marks {
        closers: vec![LlamaToken(99)],
        array_closers: vec![LlamaToken(98)],
        item_array_closers: vec![LlamaToken(97)],
        ..Marks::default()
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
fn a_held_string_that_loops_is_taken_back_to_its_first_round_and_closed_keeping_the_call() {
    let mut d = forced();
    let start = [
        "{\"tool\": \"weather\", ",
        "\"arguments\": {\"note\": \"",
        "Paris",
    ];
    for (i, p) in start.iter().enumerate() {
        assert_eq!(
            d.push(LlamaToken(i as i32), p.as_bytes()),
            Step::Go(String::new())
        );
    }
    let round = [" and", " it", " is", " a", " place", " to", " live", ","];
    let mut last = None;
    for _ in 0..4 {
        for (j, p) in round.iter().enumerate() {
            last = Some(d.push(LlamaToken(50 + j as i32), p.as_bytes()));
        }
    }
    assert_eq!(last, Some(Step::Rewind { keep: 3 + 8 }));
    let marks = loop_closers();
    assert_eq!(d.closing(&marks), Some(&[LlamaToken(99)][..]));
    d.push(LlamaToken(99), b"\"}}");
    assert_eq!(d.closing(&marks), None);
    let Step::End(Finish::Eos, text) = d.end_of_generation() else {
        panic!("the call ends the answer");
    };
    assert_eq!(
        text,
        "{\"tool\": \"weather\", \"arguments\": {\"note\": \"Paris and it is a place to live,\"}}"
    );
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
        ..Marks::default()
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
        ..Marks::default()
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
        ..Marks::default()
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

#[test]
fn a_held_array_whose_items_loop_is_taken_back_to_an_items_end_and_closed() {
    let mut d = forced();
    let start = [
        "{\"tool\": \"poker\", ",
        "\"arguments\": {\"hand\": [",
        "\"10♥\"",
    ];
    for (i, p) in start.iter().enumerate() {
        assert_eq!(
            d.push(LlamaToken(i as i32), p.as_bytes()),
            Step::Go(String::new())
        );
    }
    // `, "J♠"` again and again, one token a piece, until the loop is seen mid-item.
    let round = [",", " \"", "J", "♠", "\""];
    let keep = (0..8 * round.len()).find_map(|i| {
        let j = i % round.len();
        match d.push(LlamaToken(50 + j as i32), round[j].as_bytes()) {
            Step::Rewind { keep } => Some(keep),
            _ => None,
        }
    });
    // Kept: the start and one whole round, ending after an item, not inside one.
    assert_eq!(keep, Some(3 + 5));
    let marks = loop_closers();
    assert_eq!(d.closing(&marks), Some(&[LlamaToken(98)][..]));
    d.push(LlamaToken(98), b"]}}");
    let Step::End(Finish::Eos, text) = d.end_of_generation() else {
        panic!("the call ends the answer");
    };
    assert_eq!(
        text,
        "{\"tool\": \"poker\", \"arguments\": {\"hand\": [\"10♥\", \"J♠\"]}}"
    );
}

#[test]
fn an_array_whose_items_join_their_quote_to_the_comma_is_closed_inside_an_item() {
    let mut d = forced();
    let start = ["{\"tool\": \"poker\", ", "\"arguments\": {\"hand\": ["];
    for (i, p) in start.iter().enumerate() {
        d.push(LlamaToken(i as i32), p.as_bytes());
    }
    // ` "J♠",` again and again: no token ends right after an item.
    let round = [" \"", "J", "♠", "\","];
    let keep = (0..10 * round.len()).find_map(|i| {
        let j = i % round.len();
        match d.push(LlamaToken(50 + j as i32), round[j].as_bytes()) {
            Step::Rewind { keep } => Some(keep),
            _ => None,
        }
    });
    assert!(keep.is_some(), "the loop is taken back");
    let marks = loop_closers();
    assert_eq!(d.closing(&marks), Some(&[LlamaToken(97)][..]));
    d.push(LlamaToken(97), b"\"]}}");
    let Step::End(Finish::Eos, text) = d.end_of_generation() else {
        panic!("the call ends the answer");
    };
    let call: serde_json::Value = serde_json::from_str(&text).unwrap();
    let hand = call["arguments"]["hand"].as_array().unwrap();
    assert!(
        !hand.is_empty() && hand.iter().all(|c| c.as_str().unwrap().starts_with('J')),
        "{text}"
    );
}

#[test]
fn right_after_a_held_call_the_answer_is_between_calls_and_not_before_or_after_more_text() {
    let mut d = forced();
    assert!(!d.between_calls());
    step_text(
        &mut d,
        &[
            "{\"tool\": \"weather\"",
            ", \"arguments\": {\"city\": \"Paris\"}",
        ],
    );
    assert!(!d.between_calls(), "the call is not complete yet");
    step_text(&mut d, &["}", "\n"]);
    assert!(d.between_calls());
    step_text(&mut d, &["```"]);
    assert!(!d.between_calls());
    assert!(!Decoder::new(&Sampling::default(), Some(hold())).between_calls());
}

#[test]
fn another_call_is_begun_when_its_first_token_weighs_enough_next_to_the_likeliest() {
    let d = forced();
    let marks = Marks {
        continuers: tokens(&[7]),
        ..Marks::default()
    };
    let close = LlamaToken(3);
    let another = |weight: f32| [(close, 10.0), (LlamaToken(7), 10.0 + weight.ln())];
    assert_eq!(d.more_calls(&another(0.05), &marks), Some(LlamaToken(7)));
    assert_eq!(
        d.more_calls(&another(MORE_CALLS_RATIO), &marks),
        Some(LlamaToken(7))
    );
    assert_eq!(d.more_calls(&another(0.01), &marks), Some(close));
    assert_eq!(d.more_calls(&[(close, 1.0)], &marks), Some(close));
    assert_eq!(d.more_calls(&[], &marks), None);
}
