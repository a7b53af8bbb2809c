//! The protocol's tests in one binary: the examples of `PROTOCOL.md` (`examples`) and the
//! committed schema (`schema`).

mod examples;
mod schema;
