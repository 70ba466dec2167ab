//! `switchboard servers search|install|update`: finding servers in the MCP Registry,
//! installing one from the registry or from an MCP Bundle (`.mcpb`) file, and updating a
//! registry server. What will run (the command and every argument, the env and header values
//! the entry gives and the names of those typed, the URL) is printed and confirmed before
//! anything is saved; without a terminal only `--yes` confirms. What is applied is exactly what
//! was printed: the plan's, update's or bundle's digest goes back to the engine, which refuses
//! anything else. An installed server is started once to list its tools, then stopped.

use std::io::Write;
use std::path::Path;

use switchboard_engine::Engine;
use switchboard_engine::mcp::Installed;
use switchboard_engine::mcp::{BundleInstall, BundlePreview};
use switchboard_engine::mcp::{
    InstallPlan, InstallRequest, RegistryEntry, RegistryPage, UpdatePlan, install_options,
};

use super::CliError;
use super::pairs;

/// What `servers install` was given.
pub(super) struct InstallArgs<'a> {
    /// A registry name or a `.mcpb` file.
    pub target: &'a str,
    /// The registry version (none: the latest).
    pub version: Option<&'a str>,
    /// `NAME=VALUE` values for a registry entry.
    pub env: &'a [String],
    /// `KEY=VALUE` values for a bundle's `user_config`.
    pub config: &'a [String],
    /// The configured server's name.
    pub name: Option<&'a str>,
    /// Which install option of the entry (`package:N`, `remote:N`).
    pub option: Option<&'a str>,
    /// The registry URL (none: the setting).
    pub registry: Option<&'a str>,
    /// Do not ask.
    pub yes: bool,
}

/// `servers search`.
pub(super) async fn search(
    engine: &Engine,
    out: &mut impl Write,
    query: &str,
    cursor: Option<&str>,
    registry: Option<&str>,
    json: bool,
) -> Result<(), CliError> {
    let page = match engine
        .installer()
        .registry_search(query, cursor, registry)
        .await
    {
        Ok(page) => page,
        Err(error) => {
            let cached = engine.installer().cached_registry_listing().await?;
            if let Some(page) = cached.filter(|_| !json) {
                eprintln!(
                    "{error}\nshowing the last listing (cached, from {}):",
                    page.registry
                );
                return print_page(out, &page);
            }
            return Err(error.into());
        }
    };
    if json {
        serde_json::to_writer_pretty(&mut *out, &page).map_err(std::io::Error::from)?;
        writeln!(out)?;
        return Ok(());
    }
    print_page(out, &page)
}

fn print_page(out: &mut impl Write, page: &RegistryPage) -> Result<(), CliError> {
    if page.entries.is_empty() {
        writeln!(out, "no servers found")?;
    }
    for e in &page.entries {
        writeln!(
            out,
            "{}  {}  [{}]",
            e.name,
            e.version,
            e.transports().join(", ")
        )?;
        if !e.description.is_empty() {
            writeln!(out, "    {}", e.description)?;
        }
        if let Some(repo) = e.repository.as_ref().filter(|r| !r.url.is_empty()) {
            writeln!(out, "    {}", repo.url)?;
        }
    }
    if let Some(cursor) = &page.next_cursor {
        writeln!(out, "more: --cursor {cursor}")?;
    }
    Ok(())
}

/// `servers install`: a `.mcpb` file or a registry entry.
pub(super) async fn install(
    engine: &Engine,
    out: &mut impl Write,
    a: &InstallArgs<'_>,
) -> Result<(), CliError> {
    let path = Path::new(a.target);
    if a.target.ends_with(".mcpb") || path.is_file() {
        return install_bundle(engine, out, path, a).await;
    }
    if !a.config.is_empty() {
        return Err(CliError::Usage(
            "--config is for bundles (.mcpb); a registry entry takes --env".into(),
        ));
    }
    let entry = engine
        .installer()
        .registry_entry(a.target, a.version, a.registry)
        .await?;
    let request = InstallRequest {
        option: a.option.map(str::to_owned),
        server_name: a.name.map(str::to_owned),
        values: pairs(a.env, '=', "a value must look like `NAME=value`")?,
    };
    print_entry(out, &entry)?;
    let plan = engine
        .installer()
        .plan_registry_install(&entry, &request, a.registry)
        .await?;
    print_plan(out, &plan)?;
    if let Some(check) = plan.runtime.as_ref().filter(|c| c.found.is_none()) {
        return Err(CliError::Usage(format!(
            "{} is not installed (not found on the PATH); {}",
            check.program, check.hint
        )));
    }
    out.flush()?;
    if !(a.yes
        || confirm(&format!(
            "Install {} and run the command above?",
            plan.server_name
        ))
        .await?)
    {
        writeln!(out, "not installed")?;
        return Ok(());
    }
    let installed = engine
        .installer()
        .install_from_registry(&entry, &request, a.registry, &plan.digest)
        .await?;
    finish(engine, out, installed).await
}

async fn install_bundle(
    engine: &Engine,
    out: &mut impl Write,
    path: &Path,
    a: &InstallArgs<'_>,
) -> Result<(), CliError> {
    if !a.env.is_empty() || a.version.is_some() {
        return Err(CliError::Usage(
            "a bundle takes --config KEY=VALUE, not --env or --version".into(),
        ));
    }
    let preview = engine.installer().preview_bundle(path)?;
    print_bundle(out, &preview)?;
    out.flush()?;
    let request = BundleInstall {
        server_name: a.name.map(str::to_owned),
        config: pairs(a.config, '=', "a value must look like `KEY=value`")?,
    };
    if !(a.yes
        || confirm(&format!(
            "Install the bundle {} {}?",
            preview.name, preview.version
        ))
        .await?)
    {
        writeln!(out, "not installed")?;
        return Ok(());
    }
    let installed = engine
        .installer()
        .install_bundle(path, &request, &preview.digest)
        .await?;
    finish(engine, out, installed).await
}

/// `servers update`.
pub(super) async fn update(
    engine: &Engine,
    out: &mut impl Write,
    name: &str,
    yes: bool,
) -> Result<(), CliError> {
    let Some(plan) = engine.installer().check_update(name).await? else {
        writeln!(out, "{name} is up to date")?;
        return Ok(());
    };
    print_update(out, &plan)?;
    out.flush()?;
    if !(yes || confirm(&format!("Update {} to {}?", plan.server, plan.to_version)).await?) {
        writeln!(out, "not updated")?;
        return Ok(());
    }
    let installed = engine.installer().apply_update(name, &plan.digest).await?;
    finish(engine, out, installed).await
}

/// Reports an installed server's tools, then stops it (nothing outlives a CLI command).
async fn finish(
    engine: &Engine,
    out: &mut impl Write,
    installed: Installed,
) -> Result<(), CliError> {
    let name = installed.record.config.name.clone();
    writeln!(out, "installed {name}")?;
    for tool in &installed.tools {
        writeln!(out, "  tool {}", tool.name)?;
    }
    engine.mcp().stop_server(&name).await;
    match installed.start_error {
        None => Ok(()),
        Some(why) => Err(CliError::Runtime(format!(
            "{name} is configured but did not start: {why}"
        ))),
    }
}

fn print_entry(out: &mut impl Write, e: &RegistryEntry) -> Result<(), CliError> {
    writeln!(out, "{} {}", e.name, e.version)?;
    if !e.description.is_empty() {
        writeln!(out, "  {}", e.description)?;
    }
    for option in install_options(e) {
        let note = option
            .unsupported
            .map(|w| format!(" (cannot install: {w})"))
            .unwrap_or_default();
        writeln!(out, "  option {}: {}{note}", option.id, option.label)?;
        for f in &option.fields {
            let mut marks = vec![f.target.clone()];
            marks.extend(f.required.then(|| "required".to_owned()));
            marks.extend(f.secret.then(|| "secret".to_owned()));
            marks.extend(f.default.as_ref().map(|d| format!("default {d}")));
            if !f.choices.is_empty() {
                marks.push(format!("one of {}", f.choices.join("|")));
            }
            writeln!(out, "    {} ({})", f.key, marks.join(", "))?;
        }
    }
    Ok(())
}

fn print_plan(out: &mut impl Write, p: &InstallPlan) -> Result<(), CliError> {
    writeln!(out, "will install {}:", p.server_name)?;
    if let Some(command) = &p.command {
        writeln!(out, "  command: {command}")?;
        for arg in &p.args {
            writeln!(out, "  arg: {arg}")?;
        }
    }
    if let Some(url) = &p.url {
        writeln!(out, "  url: {url}")?;
    }
    for (name, value) in &p.env {
        writeln!(out, "  env: {name}={value}")?;
    }
    for (name, value) in &p.headers {
        writeln!(out, "  header: {name}: {value}")?;
    }
    if let Some(check) = &p.runtime {
        let at = check.found.as_deref().unwrap_or("NOT FOUND");
        writeln!(out, "  runtime: {} ({at})", check.program)?;
    }
    Ok(())
}

fn print_bundle(out: &mut impl Write, b: &BundlePreview) -> Result<(), CliError> {
    writeln!(
        out,
        "bundle {} {} by {} ({})",
        b.display_name,
        b.version,
        b.author,
        if b.signed {
            "signed, not verified"
        } else {
            "unsigned"
        }
    )?;
    if !b.description.is_empty() {
        writeln!(out, "  {}", b.description)?;
    }
    writeln!(out, "  server: {} {}", b.server_type, b.entry_point)?;
    writeln!(out, "  command: {}", b.command_line)?;
    for t in &b.tools {
        writeln!(out, "  tool: {}", t.name)?;
    }
    for p in &b.prompts {
        writeln!(out, "  prompt: {}", p.name)?;
    }
    for (key, f) in &b.user_config {
        let mut marks = vec![f.kind.clone()];
        marks.extend(f.required.then(|| "required".to_owned()));
        marks.extend(f.sensitive.then(|| "sensitive".to_owned()));
        writeln!(out, "  config: {key} ({})", marks.join(", "))?;
    }
    let platforms = if b.platforms.is_empty() {
        "any".to_owned()
    } else {
        b.platforms.join(", ")
    };
    writeln!(out, "  platforms: {platforms}")?;
    for (runtime, range) in &b.runtimes {
        writeln!(out, "  needs: {runtime} {range}")?;
    }
    writeln!(
        out,
        "  files: {} ({} bytes unpacked)",
        b.files, b.unpacked_bytes
    )?;
    Ok(())
}

fn print_update(out: &mut impl Write, u: &UpdatePlan) -> Result<(), CliError> {
    writeln!(
        out,
        "{} ({}): {} → {}",
        u.server, u.entry, u.from_version, u.to_version
    )?;
    writeln!(out, "  now:   {}", u.old_command_line)?;
    writeln!(out, "  after: {}", u.new_command_line)?;
    if u.old_names != u.new_names {
        writeln!(out, "  names now:   {}", u.old_names.join(", "))?;
        writeln!(out, "  names after: {}", u.new_names.join(", "))?;
    }
    for (name, value) in &u.new_values {
        writeln!(out, "  value after: {name}={value}")?;
    }
    for m in &u.missing {
        writeln!(out, "  missing: {m}")?;
    }
    Ok(())
}

/// Asks `question` on the terminal; without one, refuses (a script confirms with --yes).
async fn confirm(question: &str) -> Result<bool, CliError> {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() {
        return Err(CliError::Usage(
            "nothing was installed: confirm with --yes when not run from a terminal".into(),
        ));
    }
    let question = question.to_owned();
    let line = tokio::task::spawn_blocking(move || {
        eprint!("{question} [y/N] ");
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map(|_| line)
    })
    .await
    .map_err(|e| CliError::Runtime(e.to_string()))??;
    Ok(matches!(line.trim().to_lowercase().as_str(), "y" | "yes"))
}
