//! The text checks every server config passes, wherever it is made (a form, the CLI, an
//! import, an install link, a registry entry, a bundle): no control or Unicode format
//! characters (bidi overrides, zero-width characters) in a command, an argument, a name or a
//! folder, so what a preview shows is what runs; env names are plain identifiers
//! (`[A-Za-z_][A-Za-z0-9_]*`) and header names RFC 7230 tokens. Also which env variables are
//! "loader-style" — read by a runtime to load or run other code (`NODE_OPTIONS`, `LD_*`,
//! `PYTHON*`, `npm_config_*`, …): allowed, but a config from a link, a registry or a bundle
//! that sets one is shown with a warning the user must accept.

use crate::vocab::server::{ServerConfig, Transport};

/// The first character of `text` that is a control character (Unicode `Cc`), a format
/// character (`Cf`: bidi overrides and isolates, zero-width spaces and joiners, the BOM, …) or
/// a line or paragraph separator: characters that hide or reorder what is shown.
pub(crate) fn hidden_char(text: &str) -> Option<char> {
    text.chars().find(|c| c.is_control() || is_format(*c))
}

/// Whether `c` is a Unicode format character (general category `Cf`, Unicode 15.1) or a line
/// or paragraph separator (`Zl`, `Zp`).
fn is_format(c: char) -> bool {
    matches!(
        u32::from(c),
        0x00AD
            | 0x0600..=0x0605
            | 0x061C
            | 0x06DD
            | 0x070F
            | 0x0890..=0x0891
            | 0x08E2
            | 0x180E
            | 0x200B..=0x200F
            | 0x2028..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
    )
}

/// How a hidden character is named in a message: `U+202E`.
pub(crate) fn describe(c: char) -> String {
    format!("U+{:04X}", u32::from(c))
}

/// Whether `name` is a plain environment variable name: `[A-Za-z_][A-Za-z0-9_]*`.
pub(crate) fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `name` is an HTTP header name: an RFC 7230 `token` (letters, digits and
/// ``!#$%&'*+-.^_`|~``).
pub(crate) fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Exact names (compared without case) of variables that make a runtime load or run other code.
const LOADER_NAMES: &[&str] = &[
    "NODE_OPTIONS",
    "NODE_PATH",
    "DOCKER_HOST",
    "BASH_ENV",
    "ENV",
    "PATH",
    "PERL5OPT",
    "PERL5LIB",
    "RUBYOPT",
    "RUBYLIB",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
];

/// Prefixes (compared without case) of such variables.
const LOADER_PREFIXES: &[&str] = &[
    "LD_",
    "DYLD_",
    "PYTHON",
    "NPM_CONFIG_",
    "UV_",
    "PIP_",
    "GIT_",
];

/// Whether env variable `name` is loader-style: read by a runtime (node, the dynamic linker,
/// Python, npm, uv, pip, git, docker, a shell) to load or run other code or to fetch packages
/// from elsewhere, e.g. `NODE_OPTIONS=--import=data:…` or `npm_config_registry`.
pub(crate) fn is_loader_variable(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    LOADER_NAMES.contains(&upper.as_str()) || LOADER_PREFIXES.iter().any(|p| upper.starts_with(p))
}

/// The loader-style variables `config` sets (in `env`), in name order: what a preview of a
/// config from a link, a registry entry or a bundle warns about.
pub(crate) fn risky_env(config: &ServerConfig) -> Vec<String> {
    match &config.transport {
        Transport::Stdio { env, .. } => env
            .keys()
            .filter(|name| is_loader_variable(name))
            .cloned()
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bidi_overrides_zero_width_characters_and_controls_are_hidden_characters() {
        for c in [
            '\u{202A}',
            '\u{202E}',
            '\u{2066}',
            '\u{2069}',
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{FEFF}',
            '\u{0000}',
            '\n',
            '\u{1b}',
            '\u{85}',
            '\u{2028}',
            '\u{E0041}',
        ] {
            assert_eq!(hidden_char(&format!("npx{c}y")), Some(c), "{}", describe(c));
        }
        for plain in [
            "npx",
            "@scope/pkg@1.0.0",
            "日本語",
            "naïve",
            "C:\\Program Files",
        ] {
            assert_eq!(hidden_char(plain), None, "{plain}");
        }
    }

    #[test]
    fn env_names_are_plain_identifiers_and_header_names_are_tokens() {
        for good in ["A", "_x", "API_KEY", "a1_B2"] {
            assert!(is_env_name(good), "{good}");
        }
        for bad in [
            "",
            "1A",
            "NODE_OPTIONS=--require=x",
            "A\nB",
            "A-B",
            "A B",
            "É",
        ] {
            assert!(!is_env_name(bad), "{bad}");
        }
        for good in ["Authorization", "X-API-Key", "x_y.z~!"] {
            assert!(is_header_name(good), "{good}");
        }
        for bad in ["", "X Key", "X:Key", "X\r\nEvil", "Ключ", "a(b)"] {
            assert!(!is_header_name(bad), "{bad}");
        }
    }

    #[test]
    fn loader_variables_are_recognised_in_any_case_and_ordinary_ones_are_not() {
        for risky in [
            "NODE_OPTIONS",
            "LD_PRELOAD",
            "DYLD_INSERT_LIBRARIES",
            "PYTHONPATH",
            "PYTHONSTARTUP",
            "npm_config_registry",
            "NPM_CONFIG_REGISTRY",
            "UV_INDEX_URL",
            "PIP_INDEX_URL",
            "DOCKER_HOST",
            "BASH_ENV",
            "PATH",
            "GIT_SSH_COMMAND",
            "node_options",
        ] {
            assert!(is_loader_variable(risky), "{risky}");
        }
        for fine in ["API_KEY", "MODE", "HOME", "NODE_ENV", "GITHUB_TOKEN", "UVX"] {
            assert!(!is_loader_variable(fine), "{fine}");
        }
    }
}
