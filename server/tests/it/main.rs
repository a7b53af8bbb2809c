//! The server's integration tests, one module per subject, in one binary: the server, its
//! dependencies and the helpers are linked once, not once per subject.
//!
//! The server under test runs in this process (`punct_testing::TestServer`) or, where a
//! test kills, stops or signals it, as a process of its own ([`process`]). With
//! `PUNCT_TEST_DATABASE=postgres` every server keeps its rooms in PostgreSQL instead of
//! SQLite; the cluster's tests need PostgreSQL and NATS and are ignored unless asked for
//! (`cargo test -p punct-server -- --include-ignored`, as `.ci/services-tests` runs them).

mod games;

mod accounts;
mod accounts_life;
mod architecture;
mod archive;
mod backup;
mod blocks;
mod cancel;
mod chat;
mod cli;
mod clocks;
mod cluster;
mod computer;
mod correspondence;
mod durability;
mod endings;
mod engine_wasm;
mod game;
mod hostile;
mod http;
mod languages;
mod lifecycle;
mod limits;
mod mail;
mod migrate;
mod moderation;
mod proxies;
mod puzzles;
mod ratings;
mod rejections;
mod rematch;
mod restart;
mod retry;
mod rules_page;
mod rules_wasm;
mod seats;
mod seek;
mod shutdown;
mod takeback;
mod tournament;
mod tutorial;
mod web;
