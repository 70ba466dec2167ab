//! MCP resources attached to user messages, as the model sees them: text in a
//! `<resource …>` block naming its server and URI, an image as an image, other binary
//! contents as a one-line note (a model cannot read base64 usefully).

use crate::provider::UserPart;
use crate::vocab::content::Attachment;
use crate::vocab::mcp::ResourceBody;

/// The part of a user message a model is sent for `attachment`.
pub(crate) fn user_part(attachment: &Attachment) -> UserPart {
    let mime = attachment.mime_type.as_deref().unwrap_or("");
    match &attachment.body {
        ResourceBody::Text(text) => UserPart::Text {
            text: format!("{}\n{text}\n</resource>", open_tag(attachment)),
        },
        ResourceBody::Blob(data) if mime.starts_with("image/") => UserPart::Image {
            mime_type: mime.to_owned(),
            data: data.clone(),
        },
        ResourceBody::Blob(data) => UserPart::Text {
            text: format!(
                "{} [binary contents, {} bytes, not shown] </resource>",
                open_tag(attachment),
                data.len() * 3 / 4
            ),
        },
    }
}

/// `<resource server="…" uri="…" name="…" mimeType="…">` with quotes in values escaped.
fn open_tag(a: &Attachment) -> String {
    let attr = |v: &str| v.replace('&', "&amp;").replace('"', "&quot;");
    let mut tag = format!(
        "<resource server=\"{}\" uri=\"{}\" name=\"{}\"",
        attr(&a.server),
        attr(&a.uri),
        attr(&a.name)
    );
    if let Some(mime) = &a.mime_type {
        tag.push_str(&format!(" mimeType=\"{}\"", attr(mime)));
    }
    tag.push('>');
    tag
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attachment(mime: Option<&str>, body: ResourceBody) -> Attachment {
        Attachment {
            server: "everything".into(),
            uri: "test://static/resource/1".into(),
            name: "Resource \"1\"".into(),
            mime_type: mime.map(str::to_owned),
            body,
        }
    }

    #[test]
    fn a_text_resource_is_sent_as_a_block_naming_its_server_and_uri() {
        let a = attachment(Some("text/plain"), ResourceBody::Text("hello".into()));
        assert_eq!(
            user_part(&a),
            UserPart::Text {
                text: "<resource server=\"everything\" uri=\"test://static/resource/1\" \
                       name=\"Resource &quot;1&quot;\" mimeType=\"text/plain\">\nhello\n</resource>"
                    .into()
            }
        );
    }

    #[test]
    fn an_image_blob_is_sent_as_an_image() {
        let a = attachment(Some("image/png"), ResourceBody::Blob("iVBORw0K".into()));
        assert_eq!(
            user_part(&a),
            UserPart::Image {
                mime_type: "image/png".into(),
                data: "iVBORw0K".into()
            }
        );
    }

    #[test]
    fn another_blob_is_described_not_sent() {
        let a = attachment(None, ResourceBody::Blob("AAAAAAAA".into()));
        assert_eq!(
            user_part(&a),
            UserPart::Text {
                text: "<resource server=\"everything\" uri=\"test://static/resource/1\" \
                       name=\"Resource &quot;1&quot;\"> [binary contents, 6 bytes, not shown] </resource>"
                    .into()
            }
        );
    }
}
