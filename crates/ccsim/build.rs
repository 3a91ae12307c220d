//! Tells the crate how it was compiled (`ccsim::BUILD`), so that a benchmark figure can say
//! whether it came from a profile-guided build (`bench/pgo.py`): the flags are the truth, not
//! a setting someone may have forgotten to pass.

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
}
