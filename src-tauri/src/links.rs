//! Install links and bundle files reaching the window: from the command line (`--open-url
//! URL`, `--open-bundle FILE`, or a bare `switchboard://…` link or `FILE.mcpb` as the OS
//! passes a clicked link or a double-clicked file), from a second launch (the single-instance
//! path) and from the OS (tauri-plugin-deep-link). Each is kept in
//! [`OpenedLinks`](crate::commands::install::OpenedLinks) and announced with
//! [`LINK_EVENT`]; the window asks for it and shows the confirmation or the bundle's preview.
//! Nothing is parsed, installed or saved here.

use std::ffi::OsString;

use switchboard_engine::mcp::INSTALL_LINK_SCHEME as SCHEME;
use tauri::{AppHandle, Emitter, Manager, Runtime};
use tauri_plugin_deep_link::DeepLinkExt;

use crate::commands::install::OpenedLinks;

/// The event telling the window a link or a bundle is waiting (`take_opened_links`).
pub const LINK_EVENT: &str = "install-link";

fn is_link(arg: &str) -> bool {
    arg.strip_prefix(SCHEME)
        .is_some_and(|rest| rest.starts_with("://"))
}

fn is_bundle(arg: &str) -> bool {
    !arg.starts_with('-')
        && std::path::Path::new(arg)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("mcpb"))
}

/// The process arguments with a bare `switchboard://…` link turned into `--open-url URL`, and
/// a lone `FILE.mcpb` (the only argument, as a file manager passes it) into `--open-bundle
/// FILE`, so the command line parser reads them (`servers install FILE.mcpb` stays as is).
pub fn link_as_option(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let args: Vec<OsString> = args.into_iter().collect();
    let lone_bundle = args.len() == 2 && args[1].to_str().is_some_and(is_bundle);
    let mut out: Vec<OsString> = Vec::new();
    for (i, arg) in args.into_iter().enumerate() {
        let after_option = out.last().is_some_and(|a| a == "--open-url");
        if i > 0 && !after_option && arg.to_str().is_some_and(is_link) {
            out.push(OsString::from("--open-url"));
        } else if i == 1 && lone_bundle {
            out.push(OsString::from("--open-bundle"));
        }
        out.push(arg);
    }
    out
}

/// The install link or bundle file in a second launch's arguments (`cwd`: its working
/// folder, for a relative file).
pub fn link_in_args(args: &[String], cwd: &str) -> Option<String> {
    let normalized = link_as_option(args.iter().map(OsString::from));
    let words: Vec<String> = normalized
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut rest = words.iter().skip(1);
    while let Some(arg) = rest.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_owned())),
            _ => (arg.as_str(), None),
        };
        let bundle = match flag {
            "--open-url" => false,
            "--open-bundle" => true,
            _ => continue,
        };
        let value = inline.or_else(|| rest.next().cloned())?;
        if !bundle {
            return Some(value);
        }
        return Some(std::path::Path::new(cwd).join(value).display().to_string());
    }
    None
}

/// Keeps `link` for the window and tells it.
pub fn received<R: Runtime>(app: &AppHandle<R>, link: String) {
    tracing::info!("an install link or bundle was received");
    if let Some(links) = app.try_state::<OpenedLinks>() {
        links.push(link);
    }
    if let Err(error) = app.emit(LINK_EVENT, ()) {
        tracing::warn!(%error, "cannot announce an install link");
    }
}

/// Keeps what the app was started with and listens for links from the OS.
pub fn listen<R: Runtime>(app: &AppHandle<R>, opened: Option<String>) {
    if let Some(link) = opened {
        received(app, link);
    }
    let handle = app.clone();
    app.deep_link().on_open_url(move |event| {
        for url in event.urls() {
            if url.scheme() == SCHEME {
                received(&handle, url.to_string());
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| (*s).to_owned()).collect()
    }

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn a_bare_link_or_lone_bundle_becomes_its_option_and_other_arguments_stay() {
        let link = "switchboard://mcp/install?name=a";
        let out = link_as_option(os(&["switchboard", link, "--data-dir", "/x"]));
        assert_eq!(
            out,
            os(&["switchboard", "--open-url", link, "--data-dir", "/x"])
        );
        let out = link_as_option(os(&["switchboard", "/tmp/g.mcpb"]));
        assert_eq!(out, os(&["switchboard", "--open-bundle", "/tmp/g.mcpb"]));
        for kept in [
            &["switchboard", "servers", "list"][..],
            &["switchboard", "servers", "install", "/tmp/g.mcpb"],
            &["switchboard", "--open-bundle", "/tmp/g.mcpb"],
            &[
                "switchboard",
                "--open-url",
                "switchboard://mcp/install?name=a",
            ],
        ] {
            assert_eq!(link_as_option(os(kept)), os(kept));
        }
    }

    #[test]
    fn a_second_launch_gives_its_link_or_bundle_in_any_spelling() {
        let link = "switchboard://mcp/install?name=a&config=e30";
        for args in [
            strings(&["switchboard", "--open-url", link]),
            strings(&["switchboard", &format!("--open-url={link}")]),
            strings(&["switchboard", "--data-dir", "/x", link]),
        ] {
            assert_eq!(link_in_args(&args, "/").as_deref(), Some(link), "{args:?}");
        }
        let bundle = strings(&["switchboard", "g.mcpb"]);
        assert_eq!(
            link_in_args(&bundle, "/home/u").as_deref(),
            Some("/home/u/g.mcpb")
        );
        let absolute = strings(&["switchboard", "--open-bundle", "/tmp/g.mcpb"]);
        assert_eq!(
            link_in_args(&absolute, "/home/u").as_deref(),
            Some("/tmp/g.mcpb")
        );
        assert_eq!(
            link_in_args(&strings(&["switchboard", "https://x"]), "/"),
            None
        );
        assert_eq!(
            link_in_args(&strings(&["switchboard", "--data-dir", "/x"]), "/"),
            None
        );
    }
}
