//! Gives the shared library a versioned soname on ELF platforms, so programs linked
//! against one ABI never load an incompatible one. Before 1.0 every minor version may
//! break the ABI, so the soname carries major and minor (`libdivload.so.0.1`).

fn main() {
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap_or_default();
    let minor = std::env::var("CARGO_PKG_VERSION_MINOR").unwrap_or_default();
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if matches!(os.as_str(), "linux" | "freebsd" | "netbsd" | "openbsd" | "dragonfly") {
        let abi = if major == "0" { format!("0.{minor}") } else { major };
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libdivload.so.{abi}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
