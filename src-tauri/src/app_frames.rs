//! The `mcpapp` URI scheme: serves each registered MCP App document to its sandboxed frame
//! with the Content Security Policy built from the App's declared domains (and nothing
//! wider). A separate scheme gives the frame a document of its own, so it does not inherit
//! the app's CSP (as a `srcdoc` frame would) and shares no origin with the app; the frame is
//! also `sandbox="allow-scripts"` without `allow-same-origin`, so its origin is opaque.

use std::borrow::Cow;

use switchboard_engine::Engine;
use tauri::http::{Request, Response, StatusCode, header};
use tauri::{Manager, Runtime, UriSchemeContext, UriSchemeResponder};

/// The scheme's name (`mcpapp://localhost/<token>` on Linux and macOS).
pub const SCHEME: &str = "mcpapp";

/// Answers one request of an App frame.
pub fn handle<R: Runtime>(
    ctx: UriSchemeContext<'_, R>,
    request: Request<Vec<u8>>,
    responder: UriSchemeResponder,
) {
    let engine = ctx.app_handle().state::<Engine>().inner().clone();
    let token = request.uri().path().trim_start_matches('/').to_owned();
    responder.respond(respond(&engine, &token));
}

fn respond(engine: &Engine, token: &str) -> Response<Cow<'static, [u8]>> {
    let found = engine.mcp().apps().document(token);
    let built = match found {
        Ok(doc) => Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, "text/html; charset=utf-8")
            .header(header::CONTENT_SECURITY_POLICY, doc.csp)
            .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
            .header(header::CACHE_CONTROL, "no-store")
            .header(header::REFERRER_POLICY, "no-referrer")
            .body(Cow::Owned(doc.html.as_bytes().to_vec())),
        Err(error) => {
            tracing::warn!(%error, "an App frame asked for an unknown document");
            Response::builder()
                .status(StatusCode::NOT_FOUND)
                .header(header::CONTENT_TYPE, "text/plain")
                .body(Cow::Borrowed(&b"no such App view"[..]))
        }
    };
    built.unwrap_or_else(|_| Response::new(Cow::Borrowed(&b""[..])))
}
