//! Bundles made here as zips: a good one previews and unpacks; each hostile one (paths that
//! escape, symlinks, too many entries or bytes, a manifest that does not validate, an entry
//! point outside) is refused with a clear message and leaves nothing on disk.

use std::io::Write;
use std::path::{Path, PathBuf};

use zip::write::SimpleFileOptions;

use super::unpack::{MAX_ENTRIES, unpack_with};
use super::*;

fn manifest(entry_point: &str) -> String {
    serde_json::json!({
        "manifest_version": "0.3",
        "name": "hello",
        "version": "1.2.0",
        "description": "says hello",
        "author": {"name": "Ann"},
        "server": {
            "type": "node",
            "entry_point": entry_point,
            "mcp_config": {
                "command": "node",
                "args": ["${__dirname}/server/index.js", "${user_config.dirs}", "--token=${user_config.token}"],
                "env": {"TOKEN": "${user_config.token}", "SEP": "${/}"}
            }
        },
        "tools": [{"name": "hello"}],
        "user_config": {
            "token": {"type": "string", "sensitive": true, "required": true},
            "dirs": {"type": "directory", "multiple": true, "default": ["/a", "/b"]},
            "count": {"type": "number", "default": 3}
        },
        "compatibility": {"platforms": ["linux"], "runtimes": {"node": ">=18"}}
    })
    .to_string()
}

/// A zip of `files` (name → contents) in `dir`.
fn zip_of(dir: &Path, files: &[(&str, &[u8])]) -> PathBuf {
    let path = dir.join("b.mcpb");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    for (name, data) in files {
        zip.start_file(*name, SimpleFileOptions::default()).unwrap();
        zip.write_all(data).unwrap();
    }
    zip.finish().unwrap();
    path
}

fn good(dir: &Path) -> PathBuf {
    let m = manifest("server/index.js");
    zip_of(
        dir,
        &[
            ("manifest.json", m.as_bytes()),
            ("server/index.js", b"// hi"),
        ],
    )
}

/// Everything under `dir`, relative.
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        out.push(entry.file_name().to_string_lossy().into_owned());
        if entry.path().is_dir() {
            out.extend(
                tree(&entry.path())
                    .into_iter()
                    .map(|n| format!("{}/{n}", entry.file_name().to_string_lossy())),
            );
        }
    }
    out.sort();
    out
}

#[test]
fn a_good_bundle_previews_and_unpacks_into_its_name_and_version_folder() {
    let src = tempfile::tempdir().unwrap();
    let bundles = tempfile::tempdir().unwrap();
    let file = good(src.path());
    let p = preview(&file).unwrap();
    assert_eq!(
        (p.name.as_str(), p.version.as_str(), p.author.as_str()),
        ("hello", "1.2.0", "Ann")
    );
    assert_eq!(p.tools[0].name, "hello");
    assert_eq!(p.platforms, ["linux"]);
    assert_eq!(p.runtimes["node"], ">=18");
    assert!(!p.signed);
    assert!(p.user_config["token"].sensitive);
    let (m, dir) = unpack(&file, bundles.path()).unwrap();
    assert_eq!(dir, bundles.path().join("hello/1.2.0"));
    assert_eq!(
        tree(bundles.path()),
        [
            "hello",
            "hello/1.2.0",
            "hello/1.2.0/manifest.json",
            "hello/1.2.0/server",
            "hello/1.2.0/server/index.js"
        ]
    );

    let request = BundleInstall {
        server_name: None,
        config: [("token".to_owned(), "s3cret-token".to_owned())].into(),
    };
    let config = server_config(&m, &dir, &request).unwrap();
    let Transport::Stdio {
        command, args, env, ..
    } = &config.transport
    else {
        panic!()
    };
    assert_eq!(command, "node");
    let entry = format!("{}/server/index.js", dir.display());
    assert_eq!(
        args,
        &[
            entry.as_str(),
            "/a",
            "/b",
            "--token=${secret:SWITCHBOARD_SECRET_TOKEN}"
        ],
        "a list value is one argument each; a sensitive one is named, not written"
    );
    assert_eq!(env["TOKEN"], "s3cret-token");
    assert_eq!(env["SWITCHBOARD_SECRET_TOKEN"], "s3cret-token");
    let mut started = config.clone();
    crate::mcp::host::secret_args::fill_secret_args(&mut started);
    assert!(
        matches!(&started.transport, Transport::Stdio { args, .. } if args[3] == "--token=s3cret-token")
    );
    assert_eq!(env["SEP"], std::path::MAIN_SEPARATOR.to_string());
    assert!(matches!(&config.source, Some(ServerSource::Bundle { name, .. }) if name == "hello"));

    let again = unpack(&file, bundles.path()).unwrap_err().to_string();
    assert!(
        again.contains("hello 1.2.0 is already installed"),
        "{again}"
    );
}

#[test]
fn user_config_values_are_checked_against_the_manifest() {
    let m = Manifest::parse(manifest("server/index.js").as_bytes()).unwrap();
    let err = |pairs: &[(&str, &str)]| {
        let given = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        m.user_values(&given).unwrap_err().to_string()
    };
    assert_eq!(err(&[]), "token is required (string)");
    assert_eq!(
        err(&[("token", "t"), ("count", "many")]),
        "count: \"many\" is not a number"
    );
    assert!(err(&[("token", "t"), ("colour", "red")]).contains("hello asks for no \"colour\""));
}

/// Refused with a message containing `expected`, and nothing under the bundles folder.
fn refused_leaving_nothing(files: &[(&str, &[u8])], limits: Limits, expected: &str) {
    let src = tempfile::tempdir().unwrap();
    let bundles = tempfile::tempdir().unwrap();
    let file = zip_of(src.path(), files);
    let error = unpack_with(&file, bundles.path(), limits)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with(&format!("the bundle {} was refused: ", file.display())),
        "{error}"
    );
    assert!(error.contains(expected), "{error}");
    assert_eq!(
        tree(bundles.path()),
        Vec::<String>::new(),
        "{expected}: nothing left"
    );
}

#[test]
fn entries_that_escape_the_folder_are_refused_leaving_nothing() {
    let m = manifest("server/index.js");
    for name in ["../evil.js", "server/../../evil.js", "/etc/evil.js"] {
        let files: [(&str, &[u8]); 3] = [
            ("manifest.json", m.as_bytes()),
            ("server/index.js", b"x"),
            (name, b"x"),
        ];
        refused_leaving_nothing(
            &files,
            Limits::default(),
            "points outside the bundle's folder",
        );
    }
}

#[test]
fn a_symlink_entry_is_refused_leaving_nothing() {
    let src = tempfile::tempdir().unwrap();
    let bundles = tempfile::tempdir().unwrap();
    let path = src.path().join("b.mcpb");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let m = manifest("server/index.js");
    zip.start_file("manifest.json", SimpleFileOptions::default())
        .unwrap();
    zip.write_all(m.as_bytes()).unwrap();
    zip.start_file("server/index.js", SimpleFileOptions::default())
        .unwrap();
    zip.write_all(b"x").unwrap();
    zip.add_symlink("server/passwd", "/etc/passwd", SimpleFileOptions::default())
        .unwrap();
    zip.finish().unwrap();
    let error = unpack(&path, bundles.path()).unwrap_err().to_string();
    assert!(
        error.contains("the entry \"server/passwd\" is a symbolic link"),
        "{error}"
    );
    assert_eq!(tree(bundles.path()), Vec::<String>::new());
}

#[test]
fn too_many_entries_or_too_many_bytes_are_refused_leaving_nothing() {
    let m = manifest("server/index.js");
    let big = vec![0u8; 64 * 1024];
    let files: [(&str, &[u8]); 3] = [
        ("manifest.json", m.as_bytes()),
        ("server/index.js", b"x"),
        ("pad.bin", &big),
    ];
    let few = Limits {
        entries: 2,
        bytes: MAX_TOTAL_BYTES,
    };
    refused_leaving_nothing(&files, few, "it has 3 entries, more than 2");
    let small = Limits {
        entries: MAX_ENTRIES,
        bytes: 32 * 1024,
    };
    refused_leaving_nothing(&files, small, "it unpacks to more than 32768 bytes");
}

#[test]
fn a_manifest_that_does_not_validate_is_refused_leaving_nothing() {
    let no_server =
        r#"{"manifest_version": "0.3", "name": "x", "version": "1.0.0", "author": {"name": "a"}}"#;
    refused_leaving_nothing(
        &[("manifest.json", no_server.as_bytes())],
        Limits::default(),
        "its manifest.json does not validate: missing field `server`",
    );
    let bad = manifest("server/index.js")
        .replace("\"hello\"", "\"../up\"")
        .replace("1.2.0", "one");
    let files: [(&str, &[u8]); 2] = [("manifest.json", bad.as_bytes()), ("server/index.js", b"x")];
    refused_leaving_nothing(&files, Limits::default(), "name \"../up\" must be letters");
    refused_leaving_nothing(
        &files,
        Limits::default(),
        "version \"one\" is not a semantic version",
    );
    refused_leaving_nothing(
        &[("server/index.js", b"x")],
        Limits::default(),
        "it has no manifest.json",
    );
}

#[test]
fn an_entry_point_outside_the_bundle_is_refused_leaving_nothing() {
    for entry in ["../outside.js", "/usr/bin/node", "server/missing.js"] {
        let m = manifest(entry);
        let files: [(&str, &[u8]); 2] =
            [("manifest.json", m.as_bytes()), ("server/index.js", b"x")];
        let expected = if entry == "server/missing.js" {
            "is not a file of the bundle"
        } else {
            "is outside the bundle"
        };
        refused_leaving_nothing(&files, Limits::default(), expected);
    }
}

#[test]
fn a_bundle_with_a_signature_block_is_marked_signed() {
    let src = tempfile::tempdir().unwrap();
    let file = good(src.path());
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(b"MCPB_SIG_V1\x04\x00\x00\x00abcdMCPB_SIG_END");
    std::fs::write(&file, bytes).unwrap();
    assert!(preview(&file).unwrap().signed);
}

/// A zip with no entries whose end record declares `entries` (ZIP64 records when more than
/// a 16-bit count holds), padded to look like a bundle.
fn declaring(dir: &Path, entries: u64) -> PathBuf {
    let mut bytes = vec![0u8; 1024];
    if entries >= 0xFFFF {
        let record_at = bytes.len() as u64;
        bytes.extend_from_slice(&[0x50, 0x4b, 0x06, 0x06]);
        bytes.extend_from_slice(&44u64.to_le_bytes());
        bytes.extend_from_slice(&[45, 0, 45, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        bytes.extend_from_slice(&entries.to_le_bytes());
        bytes.extend_from_slice(&entries.to_le_bytes());
        bytes.extend_from_slice(&(entries * 46).to_le_bytes());
        bytes.extend_from_slice(&0u64.to_le_bytes());
        bytes.extend_from_slice(&[0x50, 0x4b, 0x06, 0x07, 0, 0, 0, 0]);
        bytes.extend_from_slice(&record_at.to_le_bytes());
        bytes.extend_from_slice(&1u32.to_le_bytes());
    }
    let count = u16::try_from(entries).unwrap_or(u16::MAX);
    bytes.extend_from_slice(&[0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0]);
    bytes.extend_from_slice(&count.to_le_bytes());
    bytes.extend_from_slice(&count.to_le_bytes());
    let field = if entries >= 0xFFFF { [0xFF; 8] } else { [0; 8] };
    bytes.extend_from_slice(&field);
    bytes.extend_from_slice(&[0, 0]);
    let path = dir.join("many.mcpb");
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn a_zip_declaring_more_entries_than_allowed_is_refused_before_it_is_parsed() {
    let dir = tempfile::tempdir().unwrap();
    for (entries, expected) in [
        (
            1_000_000,
            "it has 1000000 entries, more than 10000".to_owned(),
        ),
        (
            20_000,
            format!("it has 20000 entries, more than {MAX_ENTRIES}"),
        ),
    ] {
        let file = declaring(dir.path(), entries);
        let error = preview(&file).unwrap_err().to_string();
        assert!(error.contains(&expected), "{error}");
    }
}

#[test]
fn a_preview_carries_the_digest_of_the_file_and_staging_another_file_is_refused() {
    let src = tempfile::tempdir().unwrap();
    let staging = tempfile::tempdir().unwrap();
    let file = good(src.path());
    let shown = preview(&file).unwrap();
    let staged = stage(&file, staging.path(), &shown.digest).unwrap();
    assert_eq!(
        std::fs::read(&staged.path).unwrap(),
        std::fs::read(&file).unwrap()
    );
    drop(staged);
    assert_eq!(tree(staging.path()), Vec::<String>::new(), "the copy goes");
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(b"MCPB_SIG_END");
    std::fs::write(&file, bytes).unwrap();
    let error = stage(&file, staging.path(), &shown.digest)
        .err()
        .unwrap()
        .to_string();
    assert!(
        error.starts_with("nothing was installed: the bundle file is not what was shown"),
        "{error}"
    );
    assert_eq!(tree(staging.path()), Vec::<String>::new(), "nothing left");
}
