//! The house rules of `../shared/ARCHITECTURE.md`, checked on the tree rather than trusted:
//!
//! - the crate layering: no cycle, LLVM only in `lanes-llvm`, the IR at the bottom with no
//!   lanes dependency, the interpreter on the IR alone, nothing below the CLI depending on
//!   it, and this crate only ever a dev-dependency;
//! - no two source files of a crate import each other (a pair that does is one concept
//!   split in two, or two concepts tangled; either way it should be one file or a clear
//!   direction);
//! - the README's crate table names exactly the crates in `crates/`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use lanes_test_support::workspace_root;

/// The crate directories under `crates/`, by name.
fn crates() -> BTreeMap<String, PathBuf> {
    let dir = workspace_root().join("crates");
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect()
}

/// The package names listed in `section` (`dependencies`, `dev-dependencies`) of a
/// `Cargo.toml`: each `name = …` or `name.workspace = true` line of the section.
fn deps(manifest: &Path, section: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(manifest).expect("a readable Cargo.toml");
    let header = format!("[{section}]");
    let mut inside = false;
    let mut out = BTreeSet::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == header;
            continue;
        }
        if inside && !line.is_empty() && !line.starts_with('#') {
            let name = line.split(['=', '.', ' ']).next().unwrap_or("").trim();
            out.insert(name.to_string());
        }
    }
    out
}

#[test]
fn the_crate_layering_holds() {
    let crates = crates();
    let normal: BTreeMap<&str, BTreeSet<String>> = crates
        .iter()
        .map(|(name, dir)| (name.as_str(), deps(&dir.join("Cargo.toml"), "dependencies")))
        .collect();
    let lanes = |name: &str| -> BTreeSet<String> {
        normal[name]
            .iter()
            .filter(|d| d.starts_with("lanes-"))
            .cloned()
            .collect()
    };
    assert!(
        lanes("lanes-ir").is_empty(),
        "lanes-ir depends on {:?}",
        lanes("lanes-ir")
    );
    assert_eq!(
        lanes("lanes-interp"),
        BTreeSet::from(["lanes-ir".to_string()]),
        "the interpreter depends on the IR alone"
    );
    for (name, ds) in &normal {
        for llvm in ["inkwell", "llvm-sys"] {
            assert!(
                *name == "lanes-llvm" || !ds.contains(llvm),
                "{name} depends on {llvm}: LLVM belongs to lanes-llvm only"
            );
        }
        assert!(
            !ds.contains("lanes-cli"),
            "{name} depends on the CLI, which only parses and prints"
        );
        assert!(
            !ds.contains("lanes-test-support"),
            "{name} links the test fixtures into its library; they are a dev-dependency"
        );
    }
    // No cycle: every crate's lanes dependencies can be ordered before it.
    let mut placed: BTreeSet<String> = BTreeSet::new();
    while placed.len() < normal.len() {
        let next: Vec<String> = normal
            .keys()
            .filter(|n| !placed.contains(**n))
            .filter(|n| lanes(n).iter().all(|d| placed.contains(d)))
            .map(|n| n.to_string())
            .collect();
        assert!(
            !next.is_empty(),
            "a dependency cycle among {:?}",
            normal
                .keys()
                .filter(|n| !placed.contains(**n))
                .collect::<Vec<_>>()
        );
        placed.extend(next);
    }
}

/// The module path of a source file under `src` (`lib.rs` and `main.rs` are the root).
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("a file of the crate");
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The file of the longest prefix of module path `parts` under `src`.
fn module_file(src: &Path, parts: &[String]) -> Option<PathBuf> {
    (1..=parts.len()).rev().find_map(|k| {
        let base = parts[..k].iter().fold(src.to_path_buf(), |p, s| p.join(s));
        [base.with_extension("rs"), base.join("mod.rs")]
            .into_iter()
            .find(|c| c.is_file())
    })
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The files of the crate's `src` that `file` imports with `use crate::…`/`use super::…`
/// outside its test module.
fn imports(src: &Path, file: &Path) -> BTreeSet<PathBuf> {
    let text = std::fs::read_to_string(file).expect("a readable source file");
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let here = module_path(src, file);
    let is_mod_rs = matches!(
        file.file_stem().and_then(|s| s.to_str()),
        Some("mod" | "lib" | "main")
    );
    let mut out = BTreeSet::new();
    for line in code.lines().map(str::trim_start) {
        let line = line
            .strip_prefix("pub(crate) ")
            .or_else(|| line.strip_prefix("pub(super) "))
            .or_else(|| line.strip_prefix("pub "))
            .unwrap_or(line);
        let Some(path) = line.strip_prefix("use ") else {
            continue;
        };
        let segs: Vec<String> = path
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .next()
            .unwrap_or("")
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        let parts: Vec<String> = match segs.first().map(String::as_str) {
            Some("crate") => segs[1..].to_vec(),
            Some("super") => {
                // `super` of a `mod.rs` file is its directory's parent module; of any other
                // file, the module that declares it.
                let mut cur = if is_mod_rs {
                    here.clone()
                } else {
                    here[..here.len().saturating_sub(1)].to_vec()
                };
                let mut rest = &segs[..];
                let mut first = true;
                while rest.first().is_some_and(|s| s == "super") {
                    if !first || is_mod_rs {
                        cur.pop();
                    }
                    first = false;
                    rest = &rest[1..];
                }
                cur.extend(rest.iter().cloned());
                cur
            }
            _ => continue,
        };
        if let Some(target) = module_file(src, &parts).filter(|t| t != file) {
            out.insert(target);
        }
    }
    out
}

#[test]
fn no_two_source_files_import_each_other() {
    let mut pairs = Vec::new();
    let mut checked = 0;
    for dir in crates().values() {
        let src = dir.join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = files
            .iter()
            .map(|f| (f.clone(), imports(&src, f)))
            .collect();
        checked += files.len();
        for (a, targets) in &edges {
            for b in targets {
                if a < b && edges.get(b).is_some_and(|back| back.contains(a)) {
                    pairs.push(format!("{} <-> {}", a.display(), b.display()));
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} source files found");
    assert!(
        pairs.is_empty(),
        "files that import each other:\n{}",
        pairs.join("\n")
    );
}

#[test]
fn the_import_scan_sees_a_pair() {
    // The check above must be able to fail: two files of a scratch crate that import each
    // other are found.
    let dir = lanes_test_support::scratch_dir("house");
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("shapes")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod shapes;\n").unwrap();
    std::fs::write(src.join("shapes/mod.rs"), "pub mod a;\npub mod b;\n").unwrap();
    std::fs::write(src.join("shapes/a.rs"), "use super::b::B;\npub struct A;\n").unwrap();
    std::fs::write(
        src.join("shapes/b.rs"),
        "use crate::shapes::a::A;\npub struct B;\n",
    )
    .unwrap();
    let a = imports(&src, &src.join("shapes/a.rs"));
    let b = imports(&src, &src.join("shapes/b.rs"));
    assert!(a.contains(&src.join("shapes/b.rs")), "{a:?}");
    assert!(b.contains(&src.join("shapes/a.rs")), "{b:?}");
}

#[test]
fn the_readme_crate_table_matches_the_tree() {
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).expect("README.md");
    let listed: BTreeSet<String> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("| `lanes-"))
        .filter_map(|l| l.split('`').next())
        .map(|name| format!("lanes-{name}"))
        .collect();
    let present: BTreeSet<String> = crates().into_keys().collect();
    assert_eq!(listed, present, "README crate table vs crates/");
}
