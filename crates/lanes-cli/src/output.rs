//! Where input comes from and output goes, as a compiler driver does it: `-` is standard
//! input or output, the output kind follows `-c`/`-S`/`-emit-llvm`, and an output name
//! whose suffix says another kind is refused rather than silently written (an ELF object
//! named `out.docx` helps nobody).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};

/// What a command writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputKind {
    Object,
    Asm,
    LlvmText,
    Bitcode,
    Lir,
}

impl OutputKind {
    /// The suffixes a file of this kind may have; the first is the default.
    pub fn suffixes(self) -> &'static [&'static str] {
        match self {
            OutputKind::Object => &["o", "obj"],
            OutputKind::Asm => &["s", "S", "asm"],
            OutputKind::LlvmText => &["ll"],
            OutputKind::Bitcode => &["bc"],
            OutputKind::Lir => &["lir"],
        }
    }

    fn describe(self) -> &'static str {
        match self {
            OutputKind::Object => "an object file (-c)",
            OutputKind::Asm => "assembly (-S)",
            OutputKind::LlvmText => "LLVM IR text (-S -emit-llvm)",
            OutputKind::Bitcode => "LLVM bitcode (-c -emit-llvm)",
            OutputKind::Lir => "lanes IR",
        }
    }

    /// The kind a suffix names, if any.
    pub fn of_suffix(ext: &str) -> Option<OutputKind> {
        [
            OutputKind::Object,
            OutputKind::Asm,
            OutputKind::LlvmText,
            OutputKind::Bitcode,
            OutputKind::Lir,
        ]
        .into_iter()
        .find(|k| k.suffixes().contains(&ext))
    }
}

/// Refuses an output name whose suffix names another kind than `kind` (names without a
/// suffix, `-` and `/dev/null` are fine, as with clang).
pub fn check_output_name(path: &Path, kind: OutputKind) -> Result<()> {
    let Some(ext) = path.extension().and_then(|e| e.to_str()) else {
        return Ok(());
    };
    if kind.suffixes().contains(&ext) {
        return Ok(());
    }
    let hint = match OutputKind::of_suffix(ext) {
        Some(other) => format!("; for {} ask for it", other.describe()),
        None => String::new(),
    };
    bail!(
        "-o {}: the output is {}, which is named .{}, not .{ext}{hint}",
        path.display(),
        kind.describe(),
        kind.suffixes()[0]
    )
}

/// Writes `bytes` to `path` (`-`: standard output).
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    if path.as_os_str() == "-" {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)
            .and_then(|()| out.flush())
            .context("cannot write standard output")
    } else {
        std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
    }
}

/// The file to read for input `path`: itself, or for `-` standard input saved to a
/// temporary file whose suffix says `language` (`c`, `c++`, `cl`, `ir`, `lir`; clang's
/// `-x`). The temporary directory is removed when the guard drops.
pub fn input_file(path: &Path, language: Option<&str>) -> Result<(PathBuf, Option<TempDir>)> {
    if path.as_os_str() != "-" {
        return Ok((path.to_path_buf(), None));
    }
    let ext = match language.unwrap_or("c") {
        "c" => "c",
        "c++" | "cpp" => "cpp",
        "cl" => "cl",
        "ir" | "llvm" => "ll",
        "lir" => "lir",
        other => bail!("-x {other}: unknown language (c, c++, cl, ir or lir)"),
    };
    let text = std::io::read_to_string(std::io::stdin()).context("cannot read standard input")?;
    let dir = TempDir(std::env::temp_dir().join(format!("lanes-stdin-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).context("cannot make a temporary directory")?;
    let file = dir.0.join(format!("stdin.{ext}"));
    std::fs::write(&file, text).with_context(|| format!("cannot write {}", file.display()))?;
    Ok((file, Some(dir)))
}

/// A temporary directory, removed on drop.
pub struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
