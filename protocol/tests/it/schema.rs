//! The committed `protocol/schema.json` is the schema of the messages as they are now.

use std::path::Path;

#[test]
fn committed_schema_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema.json");
    let current = punct_protocol::schema_json();
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &current).expect("write schema.json");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == current,
        "protocol/schema.json is stale: run `cargo run -p punct-server -- schema > protocol/schema.json` \
         (or this test with UPDATE_SCHEMA=1)"
    );
}
