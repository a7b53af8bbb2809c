//! The commands whose work is not in the `punct_cli` library, one file a group.

pub(crate) mod account;
pub(crate) mod rules;
pub(crate) mod tournament;
