//! The game server (to come).
