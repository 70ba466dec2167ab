//! Reading an MCP App's UI resource: the HTML and the `_meta.ui` of its content item (its
//! CSP domains, its border preference), which [`crate::vocab::mcp::ResourceContent`] does
//! not carry.

use rmcp::model as rm;

use super::McpClient;
use crate::mcp::client::app_documents::{self, AppCsp};
use crate::vocab::mcp::McpError;

/// An App resource as read: its HTML (`None` when it is not an App document, with what it
/// was instead), CSP and border preference.
pub struct AppResource {
    /// The HTML, or what the resource was instead.
    pub html: Result<String, String>,
    /// The declared domains.
    pub csp: AppCsp,
    /// `_meta.ui.prefersBorder`.
    pub prefers_border: Option<bool>,
}

impl McpClient {
    /// Reads App resource `uri` (`resources/read`).
    pub async fn read_app_resource(&self, uri: &str) -> Result<AppResource, McpError> {
        let params = rm::ReadResourceRequestParams::new(uri);
        let result = self.bounded(self.service.read_resource(params)).await?;
        let first = result.contents.into_iter().next();
        Ok(match first {
            Some(rm::ResourceContents::TextResourceContents {
                mime_type,
                text,
                meta,
                ..
            }) => app_text(mime_type, text, meta),
            Some(rm::ResourceContents::BlobResourceContents { mime_type, .. }) => AppResource {
                html: Err(format!("a binary resource ({mime_type:?})")),
                csp: AppCsp::default(),
                prefers_border: None,
            },
            _ => AppResource {
                html: Err("no contents".to_owned()),
                csp: AppCsp::default(),
                prefers_border: None,
            },
        })
    }
}

fn app_text(mime: Option<String>, text: String, meta: Option<rm::MetaObject>) -> AppResource {
    let (csp, prefers_border) = app_documents::resource_meta(meta.as_deref());
    let html = if app_documents::is_app_mime(mime.as_deref()) {
        Ok(text)
    } else {
        Err(format!("MIME type {mime:?}"))
    };
    AppResource {
        html,
        csp,
        prefers_border,
    }
}
