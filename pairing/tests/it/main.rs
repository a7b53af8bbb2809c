//! The pairing crate's tests in one binary: small tournaments checked by hand, one
//! module per format.

mod common;

mod standings;
mod swiss;
