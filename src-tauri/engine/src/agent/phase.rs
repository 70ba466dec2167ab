//! The phases of a turn as tracing spans, so a benchmark (`bench/agent/turn.rs` with
//! `BENCH_PHASES=1`) can say where a turn's wall time goes: `turn.setup` (provider, model,
//! tools), `turn.sqlite` (every read and write of the turn's messages), `turn.request` (the
//! history as a request, fitted to the window), `turn.http` (a model call until its answer
//! starts), `turn.stream` (reading and parsing the answer) and `turn.tool` (the tool calls).
//! They are at trace level: nothing is recorded unless a subscriber asks for them.

use tracing::{Span, trace_span};

/// Resolving the provider, model, settings and tools.
pub(super) fn setup() -> Span {
    trace_span!("turn.setup")
}

/// Reading or writing the turn's messages.
pub(super) fn sqlite() -> Span {
    trace_span!("turn.sqlite")
}

/// Turning the stored branch into a fitted request.
pub(super) fn request() -> Span {
    trace_span!("turn.request")
}

/// A model call, from sending the request to the start of its answer.
pub(super) fn http() -> Span {
    trace_span!("turn.http")
}

/// Reading and parsing a model's streamed answer.
pub(super) fn stream() -> Span {
    trace_span!("turn.stream")
}

/// Running a step's tool calls.
pub(super) fn tool() -> Span {
    trace_span!("turn.tool")
}

/// A write running behind the turn (see `agent/lane.rs`): its time overlaps the other phases,
/// so it is not one of the top-level ones the benchmark adds up.
pub(super) fn behind() -> Span {
    trace_span!("turn.sqlite.behind")
}
