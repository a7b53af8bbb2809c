//! The `punct` command.
fn main() {}
