//! Security, second pass: untrusted files: GGUF, chat templates, PDFs, images and bundles parsed under bounds (issue 31, points 5 and 8).
