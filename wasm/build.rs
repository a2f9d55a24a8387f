//! Links the wasm module with a 4 MiB stack instead of rustc's 1 MiB: the sampled DP's
//! workspace (512 KiB of choices, `divload::doc::limits`) is built by value before it is
//! moved into the page's memory, and the size-optimised build keeps a second copy on the
//! stack, so a sampled plan overflowed the stack ("memory access out of bounds").
fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg=-zstack-size=4194304");
    }
}
