//! Knowledge bases: the user's files made into passages a model can be given. This first part
//! reads a file as text by its kind ([`document`]: Markdown, plain text, source code, HTML) and
//! cuts it into chunks that follow its structure — headings, paragraphs, code blocks, lines —
//! sized by a counter of the caller's choice, the embedder's own tokenizer in the index
//! ([`chunk`]). Every chunk knows where it came from (line and heading) for a citation.

pub mod chunk;
pub mod document;

pub use chunk::{Chunk, chunks};
pub use document::{Document, DocumentError, Kind, MAX_FILE_BYTES, read_document};
