//! Helpers shared by the cross-crate tests live in the test files themselves.
