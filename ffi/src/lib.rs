//! `libdivload`: the C interface to divload.
//!
//! This crate grows into the full C API (planning from arrays and from JSON, status codes,
//! the MPI helper). Today it exports the library version, so C code can already link and
//! check which divload it got.
#![forbid(unsafe_op_in_unsafe_fn)]

/// The library version as `major * 10000 + minor * 100 + patch`.
#[no_mangle]
pub extern "C" fn divload_version_number() -> u32 {
    version_number(env!("CARGO_PKG_VERSION"))
}

fn version_number(v: &str) -> u32 {
    let mut parts = v.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (a, b, c) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    a * 10000 + b * 100 + c
}

#[cfg(test)]
mod tests {
    #[test]
    fn version_number_matches_cargo() {
        assert_eq!(super::version_number("1.2.3"), 10203);
        assert_eq!(super::divload_version_number(), super::version_number(env!("CARGO_PKG_VERSION")));
    }
}
