//! The scatter model's own errors: a root, root candidates, given shares and plans that do
//! not fit the problem (the platform's values and the limits are checked with the shared
//! kinds of `error`).

use crate::error::{Error, ErrorCode, Template};

const fn invalid(text: &'static str) -> Template {
    Template::new(ErrorCode::InvalidInput, text)
}

impl Error {
    pub(crate) const fn root_out_of_range(root: usize, workers: usize) -> Error {
        invalid("root: must be a worker index in 0..{1}, got {0}")
            .ints([root as u64, workers as u64, 0])
            .error()
    }
    pub(crate) const fn no_root_candidates() -> Error {
        invalid("root_candidates: at least one candidate is needed, got 0").error()
    }
    pub(crate) const fn shares(sum: f64, items: u64) -> Error {
        invalid("shares: must add up to items = {0} (within 0.5), they add up to {r}")
            .ints([items, 0, 0])
            .real(sum)
            .error()
    }
    pub(crate) const fn share_value(position: usize, value: f64) -> Error {
        invalid("share {0}: must be finite and >= 0, got {r}")
            .ints([position as u64, 0, 0])
            .real(value)
            .error()
    }
    pub(crate) const fn plan_worker(position: usize, worker: usize, workers: usize) -> Error {
        invalid("plan[{0}]: worker {1} is out of range 0..{2} or appears twice; each worker must appear exactly once")
            .ints([position as u64, worker as u64, workers as u64])
            .error()
    }
    pub(crate) const fn counts(sum: u64, items: u64) -> Error {
        invalid("plan: counts must add up to items = {1}, they add up to {0}").ints([sum, items, 0]).error()
    }
    pub(crate) const fn root_position(root: usize, first: bool) -> Error {
        let t = if first {
            invalid("plan: the root (worker {0}) must be served first with root_mode overlap")
        } else {
            invalid("plan: the root (worker {0}) must be served last with root_mode after_send")
        };
        t.ints([root as u64, 0, 0]).error()
    }
}
