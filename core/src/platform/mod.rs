//! The vocabulary every model shares, without solvers: workers with affine costs, cost
//! functions of any shape, and the size checks every solver starts with.

pub mod cost;
pub mod worker;

use crate::error::Error;
use crate::num::Real;

/// The checks every solver starts with: at least one worker, at least one item, and no
/// more items than `N` can count.
pub(crate) fn check_sizes<N: Real>(workers: usize, items: u64) -> Result<(), Error> {
    if workers == 0 {
        return Err(Error::no_workers());
    }
    if items == 0 {
        return Err(Error::no_items());
    }
    if items > N::MAX_ITEMS {
        return Err(Error::too_many_items(items, N::MAX_ITEMS, N::NAME));
    }
    Ok(())
}
