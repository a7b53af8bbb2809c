//! The pairing crate's tests in one binary: small tournaments checked by hand, one
//! module per format, and property tests over many random tournaments (`properties`).

mod common;

mod arena;
mod properties;
mod round_robin;
mod standings;
mod swiss;
