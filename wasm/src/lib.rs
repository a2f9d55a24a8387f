//! divload in the browser (crate `divload-wasm`).
//!
//! The wasm-bindgen API and the offline calculator page are built in their own issue. Until
//! then this crate holds its place in the workspace, with its `cdylib` crate type and the
//! core's `json` feature, so the layout and the wasm32 build of the core are already
//! checked by the test command.
#![forbid(unsafe_code)]
