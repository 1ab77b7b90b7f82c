//! The OpenCL C builtin library (`builtins/builtins.cl`), embedded in the binary and
//! compiled by clang-19 once per language version; the bitcode is cached in the temp
//! directory under a name that includes the library's content hash, so a `lanes cl run`
//! pays for it once per machine, and in memory for the rest of the process.
//!
//! The library defines each builtin overload element-wise over OpenCL's vector types; the
//! front end ([`lanes_llvm::opencl`]) links and inlines it and scalarizes what remains.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use lanes_llvm::clang::{compile_to_bitcode, ClangOptions, SourceKind};

use crate::error::ClError;

/// The library's source.
pub const SOURCE: &str = include_str!("builtins/builtins.cl");

/// FNV-1a of `text`: a stable name for content, not a security measure.
fn content_hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The library's bitcode for `clang` (whose OpenCL arguments fix the language version).
pub fn bitcode(clang: &ClangOptions) -> Result<Vec<u8>, ClError> {
    static CACHE: OnceLock<Mutex<HashMap<Vec<String>, Vec<u8>>>> = OnceLock::new();
    let key = clang.extra.clone();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(bc) = cache.lock().expect("not poisoned").get(&key) {
        return Ok(bc.clone());
    }
    // The version of what is cached (the library as `library_bitcode` leaves it).
    let hash = content_hash(&format!("linkonce-1\0{SOURCE}\0{}", key.join("\0")));
    let dir = std::env::temp_dir().join(format!(
        "lanes-cl-builtins-{}-{hash:016x}",
        env!("CARGO_PKG_VERSION")
    ));
    let cached = dir.join("builtins.bc");
    let bc = match std::fs::read(&cached) {
        Ok(bc) if !bc.is_empty() => bc,
        _ => {
            let io = |e: std::io::Error| ClError::Io {
                path: dir.clone(),
                message: e.to_string(),
            };
            std::fs::create_dir_all(&dir).map_err(io)?;
            // Unique per writer, renamed into place: concurrent builds never see a
            // partial file.
            let tag = format!("{}.{:?}", std::process::id(), std::thread::current().id());
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
            std::fs::rename(&tmp, &cached).map_err(io)?;
            bc
        }
    };
    cache.lock().expect("not poisoned").insert(key, bc.clone());
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
