//! The document layer (feature `json`): platform documents in, result documents out, for
//! every model, without allocation.

pub mod scatter;
