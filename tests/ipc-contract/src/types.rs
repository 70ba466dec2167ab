//! Rust types to TypeScript types, as serde's JSON carries them over Tauri's IPC and as ts-rs
//! renders them in `ui/src/bindings.ts`: strings and paths are `string`, every integer and float
//! is `number` (bindings.rs sets `with_large_int("number")`), `Option<T>` is `T | null`,
//! sequences are arrays, maps are `Record`s, `serde_json::Value` is bindings.ts's `JsonValue`,
//! `tauri::ipc::Channel<T>` is `Channel<T>`, and any other named type keeps its name, which
//! bindings.ts must export (or which must be a type alias the contract can follow).

use std::collections::BTreeSet;

use quote::ToTokens;
use syn::{GenericArgument, PathArguments, ReturnType, Type};

use crate::error::TypeProblem;
use crate::paths::UseMap;

/// How deep type aliases may refer to one another before the contract gives up.
const MAX_ALIAS_DEPTH: usize = 8;

/// What bindings.ts calls `serde_json::Value`.
const JSON_VALUE: &str = "JsonValue";

/// A TypeScript type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TsType {
    /// `string`.
    String,
    /// `number`.
    Number,
    /// `boolean`.
    Boolean,
    /// `void`: a command that returns `()` (the promise resolves to `null`).
    Void,
    /// `T[]`.
    Array(Box<TsType>),
    /// `T | null`.
    Nullable(Box<TsType>),
    /// `Record<K, V>`.
    Record(Box<TsType>, Box<TsType>),
    /// `[A, B, …]`.
    Tuple(Vec<TsType>),
    /// A type exported by bindings.ts, with its type arguments.
    Named {
        /// The name.
        name: String,
        /// Its type arguments (`Page<Conversation>`).
        args: Vec<TsType>,
    },
    /// `Channel<T>` of `@tauri-apps/api/core`.
    Channel(Box<TsType>),
}

impl TsType {
    /// `T | null`; a nullable type stays as it is (serde writes `Some(None)` as `null` too).
    pub fn nullable(inner: TsType) -> TsType {
        match inner {
            TsType::Nullable(_) => inner,
            other => TsType::Nullable(Box::new(other)),
        }
    }

    /// The type as TypeScript source.
    pub fn render(&self) -> String {
        match self {
            TsType::String => "string".into(),
            TsType::Number => "number".into(),
            TsType::Boolean => "boolean".into(),
            TsType::Void => "void".into(),
            TsType::Array(item) => match item.as_ref() {
                TsType::Nullable(_) => format!("({})[]", item.render()),
                _ => format!("{}[]", item.render()),
            },
            TsType::Nullable(inner) => format!("{} | null", inner.render()),
            TsType::Record(key, value) => format!("Record<{}, {}>", key.render(), value.render()),
            TsType::Tuple(items) => format!("[{}]", render_list(items)),
            TsType::Named { name, args } if args.is_empty() => name.clone(),
            TsType::Named { name, args } => format!("{name}<{}>", render_list(args)),
            TsType::Channel(message) => format!("Channel<{}>", message.render()),
        }
    }

    /// Adds the bindings.ts names this type uses to `names`.
    pub fn add_bindings_names(&self, names: &mut BTreeSet<String>) {
        self.walk(&mut |t| {
            if let TsType::Named { name, .. } = t {
                names.insert(name.clone());
            }
        });
    }

    /// Whether the type is or contains a `Channel`.
    pub fn uses_channel(&self) -> bool {
        let mut found = false;
        self.walk(&mut |t| found |= matches!(t, TsType::Channel(_)));
        found
    }

    /// Calls `visit` on this type and every type inside it.
    fn walk(&self, visit: &mut impl FnMut(&TsType)) {
        visit(self);
        match self {
            TsType::Array(inner) | TsType::Nullable(inner) | TsType::Channel(inner) => {
                inner.walk(visit)
            }
            TsType::Record(key, value) => {
                key.walk(visit);
                value.walk(visit);
            }
            TsType::Tuple(items) | TsType::Named { args: items, .. } => {
                items.iter().for_each(|t| t.walk(visit))
            }
            TsType::String | TsType::Number | TsType::Boolean | TsType::Void => {}
        }
    }
}

fn render_list(types: &[TsType]) -> String {
    types
        .iter()
        .map(TsType::render)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A type alias the mapping follows (`type PriceTable = BTreeMap<String, ModelPrice>;`), with
/// the `use`s of the module that declares it.
#[derive(Debug, Clone)]
pub struct Alias {
    /// The aliased type.
    pub ty: Type,
    /// Names as the declaring module sees them.
    pub uses: UseMap,
}

/// What the mapping asks of the repository about named types.
pub trait Resolve {
    /// Whether `ui/src/bindings.ts` exports a type called `name`.
    fn exported(&self, name: &str) -> bool;
    /// The (non-generic) type alias called `name`, if the Rust sources declare one.
    fn alias(&self, name: &str) -> Result<Option<Alias>, TypeProblem>;
}

/// How one argument of a command reaches it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Argument {
    /// Filled in by Tauri (`State`, `AppHandle`, `Window`, `Webview`, `WebviewWindow`,
    /// `CommandScope`, `GlobalScope`); the UI sends nothing for it.
    Injected,
    /// The whole request (`tauri::ipc::Request`): a raw body and its headers instead of named
    /// JSON arguments.
    Request,
    /// A value the UI sends under the argument's key.
    Value(TsType),
}

/// Maps the types of one module's commands (`uses` are its `use` declarations).
pub struct Mapper<'a> {
    resolve: &'a dyn Resolve,
}

/// What a path names, by its full path.
enum Kind {
    Injected,
    Request,
    Channel,
    Json,
    JsonMap,
    String,
    Number,
    Boolean,
    Option,
    List,
    Map,
    /// `Box<T>`, `Arc<T>`, `Rc<T>`, `Cow<T>`: serialized as `T`.
    Transparent,
    Result,
    Other,
}

fn kind(full: &[String]) -> Kind {
    let (Some(first), Some(last)) = (full.first(), full.last()) else {
        return Kind::Other;
    };
    let from_std = full.len() == 1 || matches!(first.as_str(), "std" | "alloc" | "core");
    match (first.as_str(), last.as_str()) {
        (
            "tauri",
            "State" | "AppHandle" | "Window" | "Webview" | "WebviewWindow" | "CommandScope"
            | "GlobalScope",
        ) => Kind::Injected,
        ("tauri", "Request") => Kind::Request,
        ("tauri", "Channel") => Kind::Channel,
        ("serde_json", "Value") => Kind::Json,
        ("serde_json", "Map") => Kind::JsonMap,
        (_, "CmdResult") => Kind::Result,
        _ if !from_std => Kind::Other,
        (_, "String" | "str" | "char" | "PathBuf" | "Path") => Kind::String,
        (_, "bool") => Kind::Boolean,
        (
            _,
            "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64" | "i128"
            | "isize" | "f32" | "f64",
        ) => Kind::Number,
        (_, "Option") => Kind::Option,
        (_, "Vec" | "VecDeque" | "HashSet" | "BTreeSet") => Kind::List,
        (_, "HashMap" | "BTreeMap") => Kind::Map,
        (_, "Box" | "Arc" | "Rc" | "Cow") => Kind::Transparent,
        (_, "Result") => Kind::Result,
        _ => Kind::Other,
    }
}

/// `ty` as written, for messages (`BTreeMap<String, Approval>`).
pub fn written(ty: &impl ToTokens) -> String {
    let mut text = ty.to_token_stream().to_string();
    for (spaced, tight) in [
        (" :: ", "::"),
        (" < ", "<"),
        (" <", "<"),
        (" >", ">"),
        (" ,", ","),
        ("& ", "&"),
    ] {
        text = text.replace(spaced, tight);
    }
    text
}

fn unsupported(ty: &impl ToTokens, why: &str) -> TypeProblem {
    TypeProblem::Unsupported {
        ty: written(ty),
        why: why.into(),
    }
}

/// The type arguments of a path's last segment (lifetimes and consts skipped).
fn type_args(path: &syn::Path) -> Vec<&Type> {
    let Some(last) = path.segments.last() else {
        return Vec::new();
    };
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return Vec::new();
    };
    args.args
        .iter()
        .filter_map(|a| match a {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .collect()
}

impl<'a> Mapper<'a> {
    /// A mapper that looks named types up in `resolve`.
    pub fn new(resolve: &'a dyn Resolve) -> Self {
        Self { resolve }
    }

    /// How an argument of type `ty` reaches the command.
    pub fn argument(&self, ty: &Type, uses: &UseMap) -> Result<Argument, TypeProblem> {
        if let Type::Path(path) = ty {
            match kind(&uses.full_path(&path.path)) {
                Kind::Injected => return Ok(Argument::Injected),
                Kind::Request => return Ok(Argument::Request),
                _ => {}
            }
        }
        self.value(ty, uses, 0).map(Argument::Value)
    }

    /// What a command's promise resolves to: `T` of `Result<T, _>` (or `CmdResult<T>`), the
    /// returned type otherwise, `void` for `()` or no return type.
    pub fn result(&self, output: &ReturnType, uses: &UseMap) -> Result<TsType, TypeProblem> {
        let ReturnType::Type(_, ty) = output else {
            return Ok(TsType::Void);
        };
        let ty = match ty.as_ref() {
            Type::Path(path) if matches!(kind(&uses.full_path(&path.path)), Kind::Result) => {
                match type_args(&path.path).first() {
                    Some(ok) => *ok,
                    None => return Err(unsupported(ty, "a `Result` without its `Ok` type")),
                }
            }
            other => other,
        };
        match ty {
            Type::Tuple(unit) if unit.elems.is_empty() => Ok(TsType::Void),
            other => self.value(other, uses, 0),
        }
    }

    /// The TypeScript type of a value of type `ty` (`depth`: type aliases followed so far).
    pub fn value(&self, ty: &Type, uses: &UseMap, depth: usize) -> Result<TsType, TypeProblem> {
        match ty {
            Type::Path(path) if path.qself.is_none() => self.path(ty, &path.path, uses, depth),
            Type::Reference(reference) => self.value(&reference.elem, uses, depth),
            Type::Paren(inner) => self.value(&inner.elem, uses, depth),
            Type::Group(inner) => self.value(&inner.elem, uses, depth),
            Type::Slice(slice) => Ok(TsType::Array(Box::new(self.value(
                &slice.elem,
                uses,
                depth,
            )?))),
            Type::Array(array) => Ok(TsType::Array(Box::new(self.value(
                &array.elem,
                uses,
                depth,
            )?))),
            Type::Tuple(tuple) if tuple.elems.is_empty() => Err(unsupported(
                ty,
                "`()` is only understood as a command's result",
            )),
            Type::Tuple(tuple) => Ok(TsType::Tuple(
                tuple
                    .elems
                    .iter()
                    .map(|t| self.value(t, uses, depth))
                    .collect::<Result<_, _>>()?,
            )),
            _ => Err(unsupported(
                ty,
                "only named types, references, slices, arrays and tuples are understood",
            )),
        }
    }

    fn path(
        &self,
        ty: &Type,
        path: &syn::Path,
        uses: &UseMap,
        depth: usize,
    ) -> Result<TsType, TypeProblem> {
        let full = uses.full_path(path);
        let args = type_args(path);
        let one = |what: &str| -> Result<TsType, TypeProblem> {
            match args.as_slice() {
                [inner] => self.value(inner, uses, depth),
                _ => Err(unsupported(
                    ty,
                    &format!("expected {what} with one type argument"),
                )),
            }
        };
        match kind(&full) {
            Kind::Injected | Kind::Request => Err(unsupported(
                ty,
                "Tauri fills this in only as a command's whole argument",
            )),
            Kind::Result => Err(unsupported(
                ty,
                "a `Result` is only understood as a command's result",
            )),
            Kind::Channel => Ok(TsType::Channel(Box::new(one("`Channel`")?))),
            Kind::Json => self.json_value(),
            Kind::JsonMap => Ok(TsType::Record(
                Box::new(TsType::String),
                Box::new(self.json_value()?),
            )),
            Kind::String => Ok(TsType::String),
            Kind::Number => Ok(TsType::Number),
            Kind::Boolean => Ok(TsType::Boolean),
            Kind::Option => Ok(TsType::nullable(one("`Option`")?)),
            Kind::List => Ok(TsType::Array(Box::new(one("a sequence")?))),
            Kind::Transparent => args.first().map_or_else(
                || Err(unsupported(ty, "expected a type argument")),
                |inner| self.value(inner, uses, depth),
            ),
            Kind::Map => match args.as_slice() {
                [key, value] => Ok(TsType::Record(
                    Box::new(self.value(key, uses, depth)?),
                    Box::new(self.value(value, uses, depth)?),
                )),
                _ => Err(unsupported(
                    ty,
                    "expected a map with a key and a value type",
                )),
            },
            Kind::Other => self.named(ty, &full, &args, uses, depth),
        }
    }

    /// bindings.ts's type of any JSON value (`serde_json::Value`).
    fn json_value(&self) -> Result<TsType, TypeProblem> {
        let name = JSON_VALUE.to_owned();
        if !self.resolve.exported(&name) {
            return Err(TypeProblem::NotExported { name });
        }
        Ok(TsType::Named {
            name,
            args: Vec::new(),
        })
    }

    /// A type that bindings.ts exports, or a type alias to follow.
    fn named(
        &self,
        ty: &Type,
        full: &[String],
        args: &[&Type],
        uses: &UseMap,
        depth: usize,
    ) -> Result<TsType, TypeProblem> {
        let name = full.last().cloned().unwrap_or_default();
        if self.resolve.exported(&name) {
            let args = args
                .iter()
                .map(|t| self.value(t, uses, depth))
                .collect::<Result<_, _>>()?;
            return Ok(TsType::Named { name, args });
        }
        let Some(alias) = self.resolve.alias(&name)? else {
            return Err(TypeProblem::NotExported { name });
        };
        if !args.is_empty() {
            return Err(unsupported(ty, "generic type aliases are not followed"));
        }
        if depth >= MAX_ALIAS_DEPTH {
            return Err(TypeProblem::Alias {
                name,
                message: format!("more than {MAX_ALIAS_DEPTH} aliases deep"),
            });
        }
        self.value(&alias.ty, &alias.uses, depth + 1)
    }
}

#[cfg(test)]
#[path = "types_tests.rs"]
mod tests;
