//! The MCP Registry: its `server.json` entries as this app reads them ([`RegistryEntry`]: what
//! a server is, how it runs, what it needs), the HTTP client that searches and pages a
//! registry with its last listing cached ([`client`]), and the install plan made from an
//! entry and the user's values ([`plan`]). The wire format is the registry API's
//! (`GET /v0/servers?search=&cursor=&limit=&version=latest`, camelCase JSON).

pub(crate) mod checks;
pub(crate) mod client;
pub(crate) mod plan;
mod shown;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

pub use client::RegistryPage;
pub(crate) use client::{DEFAULT_REGISTRY, REGISTRY_TIMEOUT_SETTING, REGISTRY_URL_SETTING};
pub use plan::{
    FormField, InstallOption, InstallPlan, InstallRequest, RuntimeCheck, UpdatePlan,
    install_options,
};

/// One server of a registry listing (the latest version unless asked otherwise).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RegistryEntry {
    /// Reverse-DNS name, e.g. `io.github.user/weather`.
    pub name: String,
    /// A display title, when the publisher gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// The version this entry describes.
    pub version: String,
    /// Its source repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub repository: Option<Repository>,
    /// Its homepage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub website_url: Option<String>,
    /// Packages to run locally (npm, PyPI, OCI, MCPB…).
    #[serde(default)]
    pub packages: Vec<Package>,
    /// Remote endpoints.
    #[serde(default)]
    pub remotes: Vec<RemoteTransport>,
    /// The registry's status for it (`active`, `deprecated`…), from the listing's `_meta`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub status: Option<String>,
}

/// A source repository.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Repository {
    /// Its URL.
    #[serde(default)]
    pub url: String,
    /// Where it is hosted (`github`…).
    #[serde(default)]
    pub source: String,
}

/// A package of an entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Package {
    /// `npm`, `pypi`, `oci`, `nuget`, `mcpb`.
    pub registry_type: String,
    /// The package name, image or download URL.
    pub identifier: String,
    /// The package's version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub version: Option<String>,
    /// The runner to use (`npx`, `uvx`, `docker`, `dnx`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub runtime_hint: Option<String>,
    /// How the running package is reached (stdio unless said).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub transport: Option<PackageTransport>,
    /// Arguments for the runner (before the package).
    #[serde(default)]
    pub runtime_arguments: Vec<Argument>,
    /// Arguments for the package (after it).
    #[serde(default)]
    pub package_arguments: Vec<Argument>,
    /// Environment variables it reads.
    #[serde(default)]
    pub environment_variables: Vec<KeyValueInput>,
    /// SHA-256 of an MCPB download.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub file_sha256: Option<String>,
}

/// A package's transport: `stdio`, or HTTP on a URL (a template over its inputs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PackageTransport {
    /// `stdio`, `streamable-http` or `sse`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The URL of an HTTP transport.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub url: Option<String>,
}

/// A remote endpoint of an entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RemoteTransport {
    /// `streamable-http` or `sse`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Its URL.
    pub url: String,
    /// Headers it needs.
    #[serde(default)]
    pub headers: Vec<KeyValueInput>,
}

/// A value the user may give: its description, whether it is required or secret, its
/// default and choices. `value`, when set, is fixed (not asked).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Input {
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
    /// It must be given.
    #[serde(default)]
    pub is_required: bool,
    /// It is a secret (to the keychain, masked).
    #[serde(default)]
    pub is_secret: bool,
    /// `string`, `number`, `boolean` or `filepath`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub format: Option<String>,
    /// A fixed value (may contain `{variables}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub value: Option<String>,
    /// The default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub default: Option<String>,
    /// A hint shown in an empty field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub placeholder: Option<String>,
    /// The only values allowed, when given.
    #[serde(default)]
    pub choices: Vec<String>,
    /// Values for the `{variables}` of `value`.
    #[serde(default)]
    pub variables: BTreeMap<String, Input>,
}

/// An environment variable or a header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct KeyValueInput {
    /// The variable's or header's name.
    pub name: String,
    /// Its value's description and rules.
    #[serde(flatten)]
    pub input: Input,
}

/// A command-line argument: `positional` (a value) or `named` (`--flag value`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Argument {
    /// `positional` or `named`.
    #[serde(rename = "type")]
    pub kind: String,
    /// A named argument's flag, e.g. `--port`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub name: Option<String>,
    /// A positional argument's label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub value_hint: Option<String>,
    /// It may be given more than once.
    #[serde(default)]
    pub is_repeated: bool,
    /// Its value's description and rules.
    #[serde(flatten)]
    pub input: Input,
}

impl RegistryEntry {
    /// The ways it can be reached, e.g. `["stdio", "streamable-http"]`.
    pub fn transports(&self) -> Vec<String> {
        let packages = (self.packages.iter())
            .map(|p| p.transport.as_ref().map_or("stdio", |t| t.kind.as_str()));
        let remotes = self.remotes.iter().map(|r| r.kind.as_str());
        let mut all: Vec<String> = packages.chain(remotes).map(str::to_owned).collect();
        all.dedup();
        all
    }
}

/// One item of a listing: the entry and the registry's metadata about it.
#[derive(Deserialize)]
struct WireItem {
    server: RegistryEntry,
    #[serde(default, rename = "_meta")]
    meta: Option<serde_json::Value>,
}

/// A listing page as the registry API sends it.
#[derive(Deserialize)]
pub(crate) struct WireList {
    servers: Vec<WireItem>,
    #[serde(default)]
    metadata: Option<WireMetadata>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireMetadata {
    #[serde(default)]
    next_cursor: Option<String>,
}

impl WireItem {
    fn into_entry(self) -> RegistryEntry {
        let mut entry = self.server;
        let official =
            (self.meta.as_ref()).and_then(|m| m.get("io.modelcontextprotocol.registry/official"));
        if let Some(status) = official
            .and_then(|o| o.get("status"))
            .and_then(|s| s.as_str())
        {
            entry.status = Some(status.to_owned());
        }
        entry
    }
}

impl WireList {
    /// The entries and the cursor of the next page (none at the end).
    pub(crate) fn into_parts(self) -> (Vec<RegistryEntry>, Option<String>) {
        let next = (self.metadata.and_then(|m| m.next_cursor)).filter(|c| !c.is_empty());
        let entries = self.servers.into_iter().map(WireItem::into_entry).collect();
        (entries, next)
    }
}

/// One entry as `GET /v0/servers/{name}/versions/{version}` sends it.
pub(crate) fn parse_one(json: &[u8]) -> Result<RegistryEntry, serde_json::Error> {
    serde_json::from_slice::<WireItem>(json).map(WireItem::into_entry)
}

#[cfg(test)]
mod tests;
