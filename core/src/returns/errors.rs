//! The return-message model's own errors: scenarios that are not orders of the workers,
//! and a throughput beyond `f64` (the platform's values and the limits are checked with the
//! shared kinds of `error`).

use crate::error::{Error, ErrorCode, Template};

impl Error {
    pub(crate) const fn throughput_overflow() -> Error {
        Template::new(
            ErrorCode::Overflow,
            "workers: the items per second Σ 1/(comm_per_item + comp_per_item + return_per_item) \
             exceed the range of f64 (costs per item near 1e-308 or below); \
             give the costs in a larger time unit",
        )
        .error()
    }
    /// `list` is `send` or `return`: which order of the scenario.
    pub(crate) const fn scenario(
        list: &'static str,
        position: usize,
        worker: usize,
        workers: usize,
    ) -> Error {
        Template::new(
            ErrorCode::InvalidInput,
            "{w}[{0}]: worker {1} is out of range 0..{2} or appears twice; each worker may appear at most once",
        )
        .ints([position as u64, worker as u64, workers as u64])
        .word(list)
        .error()
    }
    pub(crate) const fn scenario_sets() -> Error {
        Template::new(
            ErrorCode::InvalidInput,
            "return order: must hold exactly the workers of the send order (at least one), in any order",
        )
        .error()
    }
}
