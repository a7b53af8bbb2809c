//! Any text a client may send as a frame: decoding never panics, and whatever decodes
//! encodes back to a frame that decodes to the same message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use punct_protocol::ClientMessage;

fuzz_target!(|text: &str| {
    if let Ok(message) = ClientMessage::decode(text) {
        let again = serde_json::to_string(&message).expect("client messages serialise");
        assert_eq!(ClientMessage::decode(&again).ok(), Some(message));
    }
});
