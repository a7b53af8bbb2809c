//! Message ids and the back-off between tries.

use super::*;

#[test]
fn message_ids_are_made_on_the_public_host() {
    assert_eq!(host("https://punct.example.org"), "punct.example.org");
    assert_eq!(host("http://localhost:8080/"), "localhost");
    assert_eq!(host("http://[::1]:8080"), "[::1]");
    assert_eq!(host(""), "localhost");
}

#[test]
fn retries_wait_twice_as_long_each_time_up_to_an_hour() {
    let waits: Vec<u64> = (1..=4).map(|n| retry_after(n).as_secs()).collect();
    assert_eq!(waits, [1, 2, 4, 8]);
    assert_eq!(retry_after(TRIES), LAST_RETRY);
    let total: Duration = (1..TRIES).map(retry_after).sum();
    assert!(total > Duration::from_secs(5 * 3600), "{total:?}");
}
