//! Fingerprints this crate's sources for the heap index cache (`src/cache.rs`): an index written by
//! one build of the analysis must never be read by another, and the crate's version does not change
//! when the analysis does. Any edit under `src/` gives a new fingerprint, so old indexes read as
//! stale and are rebuilt rather than trusted.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=src");
    let mut files = Vec::new();
    collect(Path::new("src"), &mut files);
    files.sort();
    // FNV-1a, 64 bits: no dependency, and collisions between two builds of one crate do not matter
    // in practice (the format version and the crate version are compared too).
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= b as u64;
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for file in &files {
        eat(file.to_string_lossy().as_bytes());
        eat(&std::fs::read(file).unwrap_or_default());
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(
        out.join("engine.rs"),
        format!(
            "/// This build of the analysis: the crate's version and a hash of its sources.\n\
             pub(crate) const ENGINE: &str = \"{}+{hash:016x}\";\n",
            std::env::var("CARGO_PKG_VERSION").unwrap_or_default()
        ),
    )
    .expect("write engine.rs");
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}
