//! Where the Markdown export puts images: files in a folder beside the Markdown file (or, in
//! tests, memory), linked by a relative path.

use std::path::PathBuf;

/// Receives the images of a conversation and says how to link each.
pub trait Assets {
    /// Stores one image; returns the relative link to it.
    fn save(&mut self, mime: &str, bytes: &[u8]) -> std::io::Result<String>;
}

/// The file extension for an image MIME type, if we keep that type.
pub(crate) fn extension(mime: &str) -> Option<&'static str> {
    match mime.to_ascii_lowercase().as_str() {
        "image/png" => Some("png"),
        "image/jpeg" | "image/jpg" => Some("jpg"),
        "image/gif" => Some("gif"),
        "image/webp" => Some("webp"),
        _ => None,
    }
}

/// Images written as `image-N.ext` into a folder, created on the first image.
#[derive(Debug)]
pub struct DirAssets {
    dir: PathBuf,
    link_prefix: String,
    count: u32,
}

impl DirAssets {
    /// Images go into `dir`, linked as `link_prefix/image-N.ext`.
    pub fn new(dir: PathBuf, link_prefix: String) -> Self {
        Self {
            dir,
            link_prefix,
            count: 0,
        }
    }
}

impl Assets for DirAssets {
    fn save(&mut self, mime: &str, bytes: &[u8]) -> std::io::Result<String> {
        let ext = extension(mime).unwrap_or("bin");
        self.count += 1;
        if self.count == 1 {
            std::fs::create_dir_all(&self.dir)?;
        }
        let name = format!("image-{}.{ext}", self.count);
        std::fs::write(self.dir.join(&name), bytes)?;
        Ok(format!("{}/{name}", self.link_prefix))
    }
}

/// Images kept in memory (for tests and previews).
#[derive(Debug, Default)]
pub struct MemoryAssets {
    /// The saved images: link and bytes.
    pub saved: Vec<(String, Vec<u8>)>,
}

impl Assets for MemoryAssets {
    fn save(&mut self, mime: &str, bytes: &[u8]) -> std::io::Result<String> {
        let ext = extension(mime).unwrap_or("bin");
        let link = format!("files/image-{}.{ext}", self.saved.len() + 1);
        self.saved.push((link.clone(), bytes.to_vec()));
        Ok(link)
    }
}
