//! Puts the chosen board's `memory.x` where cortex-m-rt's `link.x` looks for it, and links
//! with `link.x`: here rather than in `.cargo/config.toml`, so that the build works from
//! any directory (`--manifest-path`).
use std::{env, fs, path::PathBuf};

fn main() {
    let boards = [("microbit", "CARGO_FEATURE_MICROBIT"), ("mps2-an386", "CARGO_FEATURE_MPS2_AN386")];
    let chosen: Vec<&str> =
        boards.iter().filter(|(_, f)| env::var_os(f).is_some()).map(|(b, _)| *b).collect();
    let [board] = chosen[..] else {
        eprintln!("choose exactly one board: --features microbit or --features mps2-an386");
        std::process::exit(1);
    };
    if board == "microbit" && env::var_os("CARGO_FEATURE_F64").is_some() {
        eprintln!("feature f64 is for the mps2-an386 image: the micro:bit plans in Q32");
        std::process::exit(1);
    }
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap_or_default());
    let memory = format!("memory-{board}.x");
    if let Err(e) = fs::copy(&memory, out.join("memory.x")) {
        eprintln!("{memory}: {e}");
        std::process::exit(1);
    }
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rustc-link-arg-bins=-Tlink.x");
    println!("cargo:rerun-if-changed={memory}");
    println!("cargo:rerun-if-changed=build.rs");
}
