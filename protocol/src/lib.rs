//! The JSON protocol between the server and its clients (to come).
