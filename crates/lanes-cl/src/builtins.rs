//! The OpenCL C builtin library (`builtins/builtins.cl`), embedded in the binary and
//! compiled by clang-19 once per language version; the bitcode is cached in the temp
//! directory under a name that includes the library's content hash, so a `lanes cl run`
//! pays for it once per machine (about 25 s), and in memory for the rest of the process.
//!
//! The library defines each builtin overload element-wise over OpenCL's vector types; the
//! front end ([`lanes_llvm::opencl`]) links and inlines it and scalarizes what remains.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use lanes_llvm::clang::{compile_to_bitcode, ClangOptions, SourceKind};

use crate::error::ClError;

/// The library's source.
pub const SOURCE: &str = include_str!("builtins/builtins.cl");

/// The library's bitcode for `clang` (whose OpenCL arguments fix the language version).
///
/// Built once: threads of the process wait for the one building it (the in-memory
/// cache's lock is held throughout), other processes for the one holding the lock file
/// next to the cached bitcode (a lock older than [`STALE_LOCK`] is taken over), so that
/// parallel tests or `lanes` runs on a fresh machine do not all run clang at once.
pub fn bitcode(clang: &ClangOptions) -> Result<Vec<u8>, ClError> {
    static CACHE: OnceLock<Mutex<HashMap<Vec<String>, Vec<u8>>>> = OnceLock::new();
    let key = clang.extra.clone();
    let mut cache = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(bc) = cache.get(&key) {
        return Ok(bc.clone());
    }
    // The version of what is cached (the library as `library_bitcode` leaves it).
    let hash =
        crate::arg_spec::checksum(format!("linkonce-1\0{SOURCE}\0{}", key.join("\0")).as_bytes());
    let dir = std::env::temp_dir().join(format!(
        "lanes-cl-builtins-{}-{hash:016x}",
        env!("CARGO_PKG_VERSION")
    ));
    let cached = dir.join("builtins.bc");
    let io = |e: std::io::Error| ClError::Io {
        path: dir.clone(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(&dir).map_err(io)?;
    let lock = dir.join("builtins.lock");
    let start = std::time::Instant::now();
    let bc = loop {
        if let Ok(bc) = std::fs::read(&cached) {
            if !bc.is_empty() {
                break bc;
            }
        }
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&lock)
        {
            Ok(_) => {
                let built = build(clang, &dir, &cached);
                let _ = std::fs::remove_file(&lock);
                break built?;
            }
            Err(_) => {
                let stale = std::fs::metadata(&lock)
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age > STALE_LOCK);
                if stale || start.elapsed() > STALE_LOCK {
                    let _ = std::fs::remove_file(&lock);
                }
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
        }
    };
    cache.insert(key, bc.clone());
    Ok(bc)
}

/// How long a build of the library may hold the lock file before others take over.
pub const STALE_LOCK: std::time::Duration = std::time::Duration::from_secs(300);

/// Compiles the library into `cached` (through a file renamed into place).
fn build(
    clang: &ClangOptions,
    dir: &std::path::Path,
    cached: &std::path::Path,
) -> Result<Vec<u8>, ClError> {
    let io = |e: std::io::Error| ClError::Io {
        path: dir.to_path_buf(),
        message: e.to_string(),
    };
    let tag = std::process::id();
    let src = dir.join(format!("builtins.{tag}.cl"));
    std::fs::write(&src, SOURCE).map_err(io)?;
    let bc = compile_to_bitcode(&src, SourceKind::OpenCl, clang);
    let _ = std::fs::remove_file(&src);
    // The library is lanes' own code: a failure is a lanes bug, not the user's.
    let bc = bc
        .and_then(|bc| lanes_llvm::opencl::library_bitcode(&bc))
        .map_err(|e| {
            ClError::Internal(format!("the OpenCL builtin library does not compile: {e}"))
        })?;
    let tmp = dir.join(format!("builtins.{tag}.bc"));
    std::fs::write(&tmp, &bc).map_err(io)?;
    std::fs::rename(&tmp, cached).map_err(io)?;
    Ok(bc)
}

/// Whether `name` (a declared function a kernel calls) is an OpenCL builtin: an
/// Itanium-mangled name, as clang gives every overloadable builtin.
pub fn is_builtin_name(name: &str) -> bool {
    name.starts_with("_Z")
}

/// The source-level name of a mangled builtin (`_Z6mad_hiii` → `mad_hi`).
pub fn demangled(name: &str) -> &str {
    let Some(rest) = name.strip_prefix("_Z") else {
        return name;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let Ok(len) = rest[..digits].parse::<usize>() else {
        return name;
    };
    rest.get(digits..digits + len).unwrap_or(name)
}
