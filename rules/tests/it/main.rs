//! The rules' tests in one binary: one test per clause of RULES.md (`rules`), perft
//! counts (`perft`) and property tests over random games (`properties`).
//!
//! `tests/allocation.rs` stays a binary of its own because it installs a counting global
//! allocator, and a global allocator is the whole binary's. Its own counts would be the
//! same here (it counts per thread), but every test here would allocate through the
//! counter: this binary ran about half as slow again with it, and perft's printed
//! timings would include it.

mod common;

mod perft;
mod properties;
mod rules;
