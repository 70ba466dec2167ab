//! A [`Sampler`] for tests, kept beside the trait: it answers every sampling request with
//! the text a function makes of the request, as a named model (or fails with the function's
//! error), so each test says only what its model does.

use futures::future::BoxFuture;

use super::interact::Sampler;
use crate::mcp::client::interact_types::{SamplingRequest, SamplingResult, StopReason};

/// Answers with `answer(request)` as model `model`, ending the turn.
pub(crate) struct FakeSampler {
    model: &'static str,
    answer: fn(&SamplingRequest) -> Result<String, String>,
}

impl FakeSampler {
    /// A sampler answering as `model` with `answer`.
    pub(crate) fn new(
        model: &'static str,
        answer: fn(&SamplingRequest) -> Result<String, String>,
    ) -> Self {
        Self { model, answer }
    }
}

impl Sampler for FakeSampler {
    fn sample(
        &self,
        request: SamplingRequest,
    ) -> BoxFuture<'static, Result<SamplingResult, String>> {
        let answer = (self.answer)(&request);
        let model = self.model.to_owned();
        Box::pin(async move {
            Ok(SamplingResult {
                model,
                text: answer?,
                stop_reason: StopReason::EndTurn,
            })
        })
    }
}
