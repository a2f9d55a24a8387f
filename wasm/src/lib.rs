//! divload in the browser. The wasm-bindgen API and the calculator page come with their
//! own issue; today this crate plans a platform JSON document into a result JSON document
//! with the same code the command line uses, so the page has one function to bind.
#![forbid(unsafe_code)]
