//! One `#[tauri::command]` function as the UI calls it: the name `invoke` takes, the keys its
//! arguments travel under (Tauri's rules: the argument's name in lowerCamelCase, or as it is
//! with `rename_all = "snake_case"`), the arguments Tauri fills in itself left out, and what
//! the promise resolves to.

use heck::{ToLowerCamelCase, ToSnakeCase};
use syn::ext::IdentExt;
use syn::{Attribute, FnArg, ItemFn, LitStr, Pat};

use crate::error::ContractError;
use crate::paths::UseMap;
use crate::types::{Argument, Mapper, TsType, written};

/// One registered command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The name `invoke` takes: the function's, or its `#[tauri::command(rename = "…")]`.
    pub name: String,
    /// The path as registered in `generate_handler!` (`commands::app::app_info`).
    pub registered: String,
    /// The module file, relative to the repository root, with `/` separators.
    pub file: String,
    /// The function's `///` lines.
    pub docs: Vec<String>,
    /// The `#[cfg(…)]` conditions on its entry in the handler list (`feature = "local"`).
    pub cfg: Vec<String>,
    /// What the UI sends.
    pub input: Input,
    /// What the promise resolves to.
    pub output: TsType,
}

/// What the UI sends to a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Named arguments in one JSON object (none for a command that takes nothing).
    Arguments(Vec<Arg>),
    /// The raw request (the command takes `tauri::ipc::Request`): a body sent as it is, not as
    /// JSON, and headers.
    Raw,
}

/// One argument the UI sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    /// The key it travels under.
    pub key: String,
    /// Its type.
    pub ty: TsType,
    /// Whether it may be left out (an `Option`: a missing key is `None`).
    pub optional: bool,
}

/// The options of `#[tauri::command(…)]` that change what the UI sends.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// `rename_all = "snake_case"`: argument keys keep their snake_case names.
    pub snake_case: bool,
    /// `rename = "…"`: the name `invoke` takes instead of the function's.
    pub rename: Option<String>,
}

/// Whether `attr` is `#[tauri::command]` or `#[command]` (with or without options).
pub fn is_command_attribute(attr: &Attribute) -> bool {
    let path = attr.path();
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    names == ["tauri", "command"] || names == ["command"]
}

/// The options of a `#[tauri::command(…)]` attribute, as tauri-macros reads them.
pub fn options(attr: &Attribute) -> Result<Options, String> {
    let mut options = Options::default();
    if matches!(attr.meta, syn::Meta::Path(_)) {
        return Ok(options);
    }
    attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("rename_all") {
            let case: LitStr = meta.value()?.parse()?;
            options.snake_case = match case.value().as_str() {
                "snake_case" => true,
                "camelCase" => false,
                other => {
                    return Err(meta.error(format!(
                        "rename_all = {other:?}: Tauri takes only \"camelCase\" or \"snake_case\""
                    )));
                }
            };
        } else if meta.path.is_ident("rename") {
            let name: LitStr = meta.value()?.parse()?;
            options.rename = Some(name.value());
        } else if meta.path.is_ident("root") {
            let _: LitStr = meta.value()?.parse()?;
        } else if !meta.path.is_ident("async") {
            return Err(meta.error("unknown option (Tauri takes rename_all, rename, root, async)"));
        }
        Ok(())
    })
    .map_err(|e| format!("cannot read `#[tauri::command(...)]`: {e}"))?;
    Ok(options)
}

/// The key an argument named `name` travels under.
pub fn key(name: &str, options: &Options) -> String {
    if options.snake_case {
        name.to_snake_case()
    } else {
        name.to_lower_camel_case()
    }
}

/// The function's `///` lines (one leading space dropped).
fn docs(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|text| {
            text.lines()
                .map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end().to_owned())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Where a command comes from, for [`read`].
#[derive(Debug, Clone)]
pub struct Origin {
    /// The path as registered in `generate_handler!`.
    pub registered: String,
    /// The module file, relative to the repository root.
    pub file: String,
    /// The `#[cfg(…)]` conditions on its handler entry.
    pub cfg: Vec<String>,
}

/// Reads the command `function` (marked `#[tauri::command]`) of a module whose `use`s are
/// `uses`.
pub fn read(
    function: &ItemFn,
    uses: &UseMap,
    mapper: &Mapper<'_>,
    origin: Origin,
) -> Result<Command, ContractError> {
    let ident = function.sig.ident.unraw().to_string();
    let signature = |name: &str, message: String| ContractError::Signature {
        command: name.to_owned(),
        path: origin.file.clone().into(),
        message,
    };
    let attribute = function
        .attrs
        .iter()
        .find(|a| is_command_attribute(a))
        .ok_or_else(|| ContractError::NotACommand {
            command: origin.registered.clone(),
            path: origin.file.clone().into(),
            function: ident.clone(),
        })?;
    let options = options(attribute).map_err(|m| signature(&ident, m))?;
    let name = options.rename.clone().unwrap_or(ident);
    let type_error = |place: String, problem| ContractError::Type {
        command: name.clone(),
        path: origin.file.clone().into(),
        place,
        problem: Box::new(problem),
    };

    let mut args = Vec::new();
    let mut raw = false;
    for input in &function.sig.inputs {
        let FnArg::Typed(typed) = input else {
            return Err(signature(&name, "a command cannot take `self`".into()));
        };
        let Pat::Ident(pattern) = typed.pat.as_ref() else {
            return Err(signature(
                &name,
                format!(
                    "argument `{}`: only plainly named arguments are understood",
                    written(&typed.pat)
                ),
            ));
        };
        let rust_name = pattern.ident.unraw().to_string();
        let place = || format!("argument `{rust_name}`");
        match mapper
            .argument(&typed.ty, uses)
            .map_err(|p| type_error(place(), p))?
        {
            Argument::Injected => {}
            Argument::Request => raw = true,
            Argument::Value(ty) => args.push(Arg {
                key: key(&rust_name, &options),
                optional: matches!(ty, TsType::Nullable(_)),
                ty,
            }),
        }
    }
    let input = match (raw, args.first()) {
        (false, _) => Input::Arguments(args),
        (true, None) => Input::Raw,
        (true, Some(arg)) => {
            return Err(signature(
                &name,
                format!(
                    "takes the raw request (`tauri::ipc::Request`) and also argument `{}`; the \
                     contract sends either a raw body or named JSON arguments, not both",
                    arg.key
                ),
            ));
        }
    };
    let output = mapper
        .result(&function.sig.output, uses)
        .map_err(|p| type_error("its result".into(), p))?;
    Ok(Command {
        name,
        registered: origin.registered,
        file: origin.file,
        docs: docs(&function.attrs),
        cfg: origin.cfg,
        input,
        output,
    })
}

#[cfg(test)]
#[path = "command_tests.rs"]
mod tests;
