//! Builds the page's rules engine (crate `punct-rules-wasm`) and its computer opponent
//! (crate `punct-engine-wasm`) as WebAssembly for the server to embed, so that the page
//! runs the very rules and engine the server does.
//!
//! Cargo runs again for the `wasm32-unknown-unknown` target, in a target directory of
//! its own: this build holds the lock on the usual one. Without that target installed
//! (`rustup target add wasm32-unknown-unknown`) the server is built without the modules:
//! the page asks the server for the legal turns, as it did before, and has no engine; with
//! `PUNCT_REQUIRE_WASM=1` (CI sets it) that is an error instead.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The target the page's engine is built for.
const TARGET: &str = "wasm32-unknown-unknown";

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let root = manifest.parent().expect("the server is a workspace member");
    for input in [
        "rules/src",
        "rules/Cargo.toml",
        "protocol/src",
        "protocol/Cargo.toml",
        "rules-wasm/src",
        "rules-wasm/Cargo.toml",
        "engine/src",
        "engine/Cargo.toml",
        "engine-wasm/src",
        "engine-wasm/Cargo.toml",
        "wasm-text/src",
        "wasm-text/Cargo.toml",
        "Cargo.toml",
        "Cargo.lock",
    ] {
        println!("cargo::rerun-if-changed={}", root.join(input).display());
    }
    println!("cargo::rerun-if-env-changed=PUNCT_REQUIRE_WASM");
    println!("cargo::rerun-if-env-changed=PUNCT_WASM_TARGET_DIR");

    let modules = [
        ("punct_rules_wasm.wasm", out.join("punct_rules.wasm")),
        ("punct_engine_wasm.wasm", out.join("punct_engine.wasm")),
    ];
    match build(root, &out) {
        Ok(built) => {
            for (name, module) in &modules {
                std::fs::copy(built.join(name), module).expect("the module copies to OUT_DIR");
            }
        }
        Err(why) if env::var_os("PUNCT_REQUIRE_WASM").is_some_and(|v| v == "1") => {
            panic!("the page's rules engine did not build: {why}");
        }
        Err(why) => {
            println!(
                "cargo::warning=built without the page's rules engine ({why}); \
                 `rustup target add {TARGET}` adds it"
            );
            for (_, module) in &modules {
                std::fs::write(module, b"").expect("OUT_DIR is writable");
            }
        }
    }
}

/// Builds the modules; answers the directory they are in.
fn build(root: &Path, out: &Path) -> Result<PathBuf, String> {
    // OUT_DIR is <target>/[<triple>/]<profile>/build/<crate>/out: the module gets a
    // directory beside the profiles, kept between builds of every profile.
    // PUNCT_WASM_TARGET_DIR names one for builds in several target directories (CI's test
    // build and its image build), which then compile the modules once between them.
    let target_dir = match env::var_os("PUNCT_WASM_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => out
            .ancestors()
            .nth(4)
            .expect("OUT_DIR is deep")
            .join("wasm"),
    };
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let built = Command::new(cargo)
        .current_dir(root)
        .args([
            "build",
            "--locked",
            "--quiet",
            "-p",
            "punct-rules-wasm",
            "-p",
            "punct-engine-wasm",
            "--lib",
        ])
        .args(["--target", TARGET, "--profile", "wasm", "--target-dir"])
        .arg(&target_dir)
        // What the outer build was given for its own target (a static C library, say)
        // or its lints (clippy) is not for this one.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTC_WRAPPER")
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env_remove("CARGO_BUILD_TARGET")
        .output()
        .map_err(|e| format!("cargo did not start: {e}"))?;
    if !built.status.success() {
        let stderr = String::from_utf8_lossy(&built.stderr);
        let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
        return Err(last.unwrap_or("cargo failed").trim().to_owned());
    }
    Ok(target_dir.join(TARGET).join("wasm"))
}
