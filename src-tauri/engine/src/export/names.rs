//! Safe, unique file names from conversation titles (any script kept, Chinese included) and
//! the percent-encoding that links to them.

use std::collections::HashSet;

/// The longest file stem we make, in characters.
const MAX_STEM: usize = 80;

/// Names Windows reserves whatever the extension.
const RESERVED: &[&str] = &[
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8",
    "com9", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
];

/// A file stem from a title: path separators, characters Windows forbids and control
/// characters become spaces, runs of spaces collapse, leading and trailing dots and spaces
/// go, at most 80 characters; "untitled" when nothing is left.
pub fn file_stem(title: &str) -> String {
    let mapped: String = title
        .chars()
        .map(|c| {
            if c.is_control() || matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|') {
                ' '
            } else {
                c
            }
        })
        .collect();
    let collapsed = mapped.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut: String = collapsed.chars().take(MAX_STEM).collect();
    let stem = cut.trim_matches(|c: char| c == '.' || c == ' ').to_owned();
    if stem.is_empty() {
        return "untitled".to_owned();
    }
    if RESERVED.contains(&stem.to_lowercase().as_str()) {
        return format!("_{stem}");
    }
    stem
}

/// Hands out file stems unique within one folder (compared case-insensitively).
#[derive(Debug, Default)]
pub(crate) struct UniqueNames {
    taken: HashSet<String>,
}

impl UniqueNames {
    /// Reserves a name (e.g. the index) so no conversation gets it.
    pub(crate) fn reserve(&mut self, stem: &str) {
        self.taken.insert(stem.to_lowercase());
    }

    /// A stem from `title`, with " (2)", " (3)"… added when it is taken.
    pub(crate) fn next(&mut self, title: &str) -> String {
        let base = file_stem(title);
        let mut stem = base.clone();
        let mut n = 1;
        while !self.taken.insert(stem.to_lowercase()) {
            n += 1;
            stem = format!("{base} ({n})");
        }
        stem
    }
}

/// Percent-encodes a relative link path (UTF-8 bytes outside the unreserved set and `/`).
pub(crate) fn encode_link(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_keep_chinese_and_drop_separators_and_reserved_characters() {
        assert_eq!(file_stem("加州的天气 / 预报"), "加州的天气 预报");
        assert_eq!(file_stem("a<b>:c*?\"d|e\\f"), "a b c d e f");
        assert_eq!(file_stem("  ..hidden.. "), "hidden");
        assert_eq!(file_stem(""), "untitled");
        assert_eq!(file_stem("../../etc/passwd"), "etc passwd");
        assert_eq!(file_stem("CON"), "_CON");
        assert_eq!(file_stem(&"长".repeat(200)).chars().count(), 80);
    }

    #[test]
    fn repeated_titles_get_numbered_names_case_insensitively() {
        let mut names = UniqueNames::default();
        names.reserve("index");
        assert_eq!(names.next("Index"), "Index (2)");
        assert_eq!(names.next("Weather"), "Weather");
        assert_eq!(names.next("weather"), "weather (2)");
        assert_eq!(names.next("Weather"), "Weather (3)");
    }

    #[test]
    fn links_are_percent_encoded() {
        assert_eq!(encode_link("a b/天.md"), "a%20b/%E5%A4%A9.md");
    }
}
