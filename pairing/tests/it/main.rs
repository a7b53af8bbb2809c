//! The pairing crate's tests in one binary: small tournaments checked by hand, one
//! module per format.

mod common;

mod arena;
mod round_robin;
mod standings;
mod swiss;
