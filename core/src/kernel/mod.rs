//! Algorithms several models use, on plain values and slices, knowing nothing of any
//! model's documents: the one-port send chain (genaud2003 eq. 1–2), the stage dynamic
//! program (genaud2003 §3.2), scratch memory seen as columns with a bucket sort on them
//! (`columns`), a comparison sort with no panic path (`sort`), a dense Cholesky
//! factorisation (`cholesky`), and bounds that stay bounds in floating point (`fp`).

pub mod chain;
pub(crate) mod cholesky;
pub(crate) mod columns;
pub mod fp;
pub mod lp;
pub mod search;
pub(crate) mod sort;
pub mod stages;
