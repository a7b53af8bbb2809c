//! The `punct` command's integration tests, one module per subject, in one binary: the
//! client, the server the online tests talk to and the helpers are linked once.
//!
//! Most tests run the `punct` binary as a process; the online ones start a server in this
//! process first (`punct_testing::TestServer`, the server's tests' own).

mod common;

mod accounts;
mod app;
mod network;
mod online;
mod rules;
mod rules_match;
mod rules_puzzles;
mod tournaments;
