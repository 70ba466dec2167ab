//! `ui/src/api/commands.ts` written from the commands: one function per command, grouped by
//! the Rust module that defines it, each taking its arguments as one object under the keys the
//! command reads (so a call site names every key, and a renamed key or a changed type fails the
//! TypeScript check), and calling the shared `call()` of `./ipc`.

use std::collections::BTreeSet;

use heck::ToLowerCamelCase;

use crate::command::{Arg, Command, Input};
use crate::types::TsType;

/// The first lines of the generated file.
pub const HEADER: &str = "\
// Generated from the Tauri commands registered in src-tauri/src/lib.rs by tests/ipc-contract
// (`make bless` rewrites it, `cargo test -p switchboard-ipc-contract` checks it). Do not edit.
// One function per command, its arguments in one object under the keys the Rust command reads:
// the wrappers beside this file call these, so a renamed or retyped Rust argument or result
// fails `npm run check` where the UI uses it.
";

/// Signatures longer than this are written one argument per line.
const MAX_LINE: usize = 110;

/// The name of the function that wraps command `command`.
pub fn function_name(command: &str) -> String {
    command.to_lower_camel_case()
}

/// The whole generated file.
pub fn file(commands: &[Command]) -> String {
    let mut names = BTreeSet::new();
    let mut channel = false;
    for command in commands {
        for ty in types(command) {
            ty.add_bindings_names(&mut names);
            channel |= ty.uses_channel();
        }
    }
    let mut out = String::from(HEADER);
    if channel {
        out.push_str("import type { Channel } from '@tauri-apps/api/core';\n");
    }
    if !names.is_empty() {
        out.push_str("import type {\n");
        for name in &names {
            out.push_str(&format!("  {name},\n"));
        }
        out.push_str("} from '../bindings';\n");
    }
    out.push_str("import { call } from './ipc';\n");
    let files: BTreeSet<&str> = commands.iter().map(|c| c.file.as_str()).collect();
    for file in files {
        out.push_str(&format!("\n// {file}\n"));
        for command in commands.iter().filter(|c| c.file == file) {
            out.push('\n');
            out.push_str(&function(command));
        }
    }
    out
}

/// Every type a command's wrapper names.
fn types(command: &Command) -> Vec<&TsType> {
    let mut types = vec![&command.output];
    if let Input::Arguments(args) = &command.input {
        types.extend(args.iter().map(|a| &a.ty));
    }
    types
}

/// One command's wrapper, with its doc comment.
pub fn function(command: &Command) -> String {
    let name = function_name(&command.name);
    let void = command.output == TsType::Void;
    let promise = format!("Promise<{}>", command.output.render());
    let keyword = if void {
        "export async function"
    } else {
        "export function"
    };
    let (params, sent) = match &command.input {
        Input::Raw => (
            "body: Uint8Array | ArrayBuffer, headers: Record<string, string>".to_owned(),
            ", body, { headers }",
        ),
        Input::Arguments(args) if args.is_empty() => (String::new(), ""),
        Input::Arguments(args) => {
            let default = if args.iter().all(|a| a.optional) {
                " = {}"
            } else {
                ""
            };
            let inline = format!("args: {{ {} }}{default}", fields(args).join("; "));
            let line = format!("{keyword} {name}({inline}): {promise} {{");
            let params = if line.len() <= MAX_LINE {
                inline
            } else {
                let listed: String = fields(args).iter().map(|f| format!("  {f};\n")).collect();
                format!("args: {{\n{listed}}}{default}")
            };
            (params, ", args")
        }
    };
    let command_name = string(&command.name);
    let body = if void {
        format!("  await call<null>({command_name}{sent});\n")
    } else {
        format!(
            "  return call<{}>({command_name}{sent});\n",
            command.output.render()
        )
    };
    format!(
        "{}{keyword} {name}({params}): {promise} {{\n{body}}}\n",
        doc_comment(command)
    )
}

/// `key: type` or `key?: type` per argument.
fn fields(args: &[Arg]) -> Vec<String> {
    args.iter()
        .map(|a| {
            let mark = if a.optional { "?" } else { "" };
            format!("{}{mark}: {}", a.key, a.ty.render())
        })
        .collect()
}

/// A TypeScript string literal.
fn string(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// The Rust docs, then which command this is (and when it exists, and how a raw body goes).
fn doc_comment(command: &Command) -> String {
    let mut lines: Vec<String> = command.docs.clone();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    if !lines.is_empty() {
        lines.push(String::new());
    }
    let mut note = format!("Command `{}`", command.name);
    if !command.cfg.is_empty() {
        note.push_str(&format!(
            ", only in builds with `{}`",
            command.cfg.join("` and `")
        ));
    }
    note.push('.');
    if command.input == Input::Raw {
        note.push_str(
            " It reads the raw request: `body` is sent as it is (not as JSON), with `headers`.",
        );
    }
    lines.push(note);
    let mut out = String::from("/**\n");
    for line in lines {
        let line = line.replace("*/", "*\\/");
        if line.is_empty() {
            out.push_str(" *\n");
        } else {
            out.push_str(&format!(" * {line}\n"));
        }
    }
    out.push_str(" */\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(name: &str) -> TsType {
        TsType::Named {
            name: name.into(),
            args: Vec::new(),
        }
    }

    fn command(name: &str, input: Input, output: TsType) -> Command {
        Command {
            name: name.into(),
            registered: format!("commands::test::{name}"),
            file: "src-tauri/src/commands/test.rs".into(),
            docs: vec!["Does it.".into()],
            cfg: Vec::new(),
            input,
            output,
        }
    }

    fn arg(key: &str, ty: TsType) -> Arg {
        Arg {
            key: key.into(),
            optional: matches!(ty, TsType::Nullable(_)),
            ty,
        }
    }

    #[test]
    fn a_command_becomes_a_function_taking_its_keys_in_one_object() {
        let rename = command(
            "rename_conversation",
            Input::Arguments(vec![
                arg("id", TsType::String),
                arg("title", TsType::String),
            ]),
            named("Conversation"),
        );
        assert_eq!(
            function(&rename),
            "/**\n * Does it.\n *\n * Command `rename_conversation`.\n */\n\
             export function renameConversation(args: { id: string; title: string }): Promise<Conversation> {\n\
             \x20 return call<Conversation>('rename_conversation', args);\n}\n"
        );
    }

    #[test]
    fn a_command_without_result_is_awaited_and_resolves_to_void() {
        let mut delete = command(
            "delete_thing",
            Input::Arguments(vec![arg("id", TsType::nullable(TsType::String))]),
            TsType::Void,
        );
        delete.docs.clear();
        delete.cfg = vec!["feature = \"local\"".into()];
        assert_eq!(
            function(&delete),
            "/**\n * Command `delete_thing`, only in builds with `feature = \"local\"`.\n */\n\
             export async function deleteThing(args: { id?: string | null } = {}): Promise<void> {\n\
             \x20 await call<null>('delete_thing', args);\n}\n"
        );
    }

    #[test]
    fn a_raw_body_command_takes_the_body_and_its_headers() {
        let attach = command("attach_bytes", Input::Raw, named("PreparedFile"));
        let text = function(&attach);
        assert!(text.contains(
            "export function attachBytes(body: Uint8Array | ArrayBuffer, headers: Record<string, string>): Promise<PreparedFile> {\n  return call<PreparedFile>('attach_bytes', body, { headers });"
        ), "{text}");
    }

    #[test]
    fn a_long_signature_lists_one_argument_per_line_and_imports_are_collected() {
        let send = command(
            "send_message",
            Input::Arguments(vec![
                arg("conversationId", TsType::String),
                arg("text", TsType::String),
                arg(
                    "onEvent",
                    TsType::Channel(Box::new(TsType::Array(Box::new(named("ChatEvent"))))),
                ),
            ]),
            TsType::Void,
        );
        let text = file(&[send]);
        assert!(
            text.contains("import type { Channel } from '@tauri-apps/api/core';\n"),
            "{text}"
        );
        assert!(
            text.contains("import type {\n  ChatEvent,\n} from '../bindings';\n"),
            "{text}"
        );
        assert!(text.contains(
            "export async function sendMessage(args: {\n  conversationId: string;\n  text: string;\n  onEvent: Channel<ChatEvent[]>;\n}): Promise<void> {\n"
        ), "{text}");
    }
}
