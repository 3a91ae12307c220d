//! Tells the crate how it was compiled (`ccsim::BUILD`), so that a benchmark figure can say
//! whether it came from a profile-guided build (`bench/pgo.py`): the flags are the truth, not
//! a setting someone may have forgotten to pass. And which source it was compiled from
//! (`ccsim::SOURCE`), so that results cached under a scenario's key (sweeps) are never taken
//! from a core built from other source under the same version number.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let has = |what: &str| flags.split('\x1f').any(|f| f.contains(what));
    // `-Cprofile-use=…` or `-C profile-use=…` (the value may be a separate flag).
    let kind = if has("profile-use") {
        "pgo"
    } else if has("profile-generate") {
        "instrumented"
    } else {
        "plain"
    };
    println!("cargo:rustc-env=CCSIM_CODEGEN={kind}");
    // `-Ctarget-cpu=native` (`bench/pgo.py`'s default): code for this machine's processor.
    let cpu = if has("target-cpu=native") {
        ", native"
    } else {
        ""
    };
    println!("cargo:rustc-env=CCSIM_TARGET_CPU={cpu}");

    // A directory makes Cargo rerun this script when anything under it changes.
    println!("cargo:rerun-if-changed=src");
    let fingerprint = fingerprint(Path::new("src"));
    println!("cargo:rustc-env=CCSIM_SOURCE={fingerprint:016x}");
}

/// FNV-1a (64-bit) over every file under `root`, in path order: each file's path relative to
/// `root` (with `/` separators, whatever the platform), then its length and its bytes.
fn fingerprint(root: &Path) -> u64 {
    let mut files = Vec::new();
    walk(root, &mut files);
    files.sort();
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    for path in files {
        let rel = path.strip_prefix(root).expect("walked from root");
        let name: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        h.write(name.join("/").as_bytes());
        h.write(&(bytes.len() as u64).to_le_bytes());
        h.write(&bytes);
    }
    h.0
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a readable directory entry").path();
        if path.is_dir() {
            walk(&path, files);
        } else {
            files.push(path);
        }
    }
}

struct Fnv(u64);

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
}
