//! Usernames, names and their look-alike keys, passwords, and devices.

use super::*;

#[test]
fn look_alike_usernames_share_a_key() {
    assert_eq!(username_key("Kris_Burm"), username_key("krisburm"));
    assert_eq!(username_key("kris-burm"), username_key("krisburm"));
    assert_ne!(username_key("kris"), username_key("krisb"));
    // Letters from other scripts that look Latin.
    assert_eq!(
        username_key("\u{430}nna"),
        username_key("anna"),
        "Cyrillic а"
    );
    assert_eq!(username_key("\u{39a}ris"), username_key("kris"), "Greek Κ");
    assert_ne!(username_key("anna"), username_key("anne"));
}

#[test]
fn names_that_pass_for_others_share_a_look_alike_key() {
    let bob = lookalike_key("bob");
    assert_eq!(lookalike_key("b0b"), bob, "a digit for a letter");
    assert_eq!(lookalike_key("B-0_8"), bob, "and case, - and _ as before");
    assert_eq!(lookalike_key("\u{299}o\u{299}"), bob, "small capitals");
    assert_eq!(
        lookalike_key("\u{44c}\u{43e}\u{44c}"),
        bob,
        "Cyrillic soft signs"
    );
    assert_eq!(lookalike_key("\u{432}o\u{432}"), bob, "Cyrillic ve");
    assert_eq!(
        lookalike_key("\u{1d0b}\u{280}\u{26a}\u{a731}"),
        lookalike_key("kris"),
        "small capitals the skeleton reads as other letters first"
    );
    assert_eq!(lookalike_key("l33t"), lookalike_key("leet"));
    // Digits that could be more than one letter stay digits.
    for (one, other) in [("anna2", "annaz"), ("al4n", "alan"), ("r6b", "rbb")] {
        assert_ne!(lookalike_key(one), lookalike_key(other), "{one}");
    }
    assert_ne!(lookalike_key("bob"), lookalike_key("rob"));
    assert_ne!(lookalike_key("anna"), lookalike_key("anne"));
}

#[test]
fn usernames_and_passwords_are_checked() {
    for good in ["abc", "Kris_Burm-2", "a2345678901234567890"] {
        assert!(check_username(good).is_ok(), "{good}");
    }
    for bad in [
        "ab",
        "2abc",
        "_abc",
        "a b c",
        "kr\u{00ef}s",
        "a23456789012345678901",
    ] {
        assert!(check_username(bad).is_err(), "{bad}");
    }
    assert!(check_password("12345678").is_ok());
    assert!(check_password("1234567").is_err());
    assert!(check_password(&"x".repeat(129)).is_err());
}

#[test]
fn a_device_is_told_from_its_user_agent() {
    for (agent, named) in [
        (
            "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
            "Firefox on Linux",
        ),
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0",
            "Edge on Windows",
        ),
        (
            "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36",
            "Chrome on Android",
        ),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
            "Safari on iOS",
        ),
        ("curl/8.5.0", "curl"),
    ] {
        assert_eq!(device(Some(agent)), named, "{agent}");
    }
    assert_eq!(device(None), "an unknown device");
}

#[tokio::test]
async fn names_are_checked_against_usernames_and_the_computer() {
    let accounts = Accounts::new(Store::empty().await, Duration::from_secs(60), 0, 0);
    let from = IpAddr::from([127, 0, 0, 1]);
    accounts
        .register("Kris_Burm", "a fine password", Lang::En, from, None)
        .await
        .unwrap();
    assert_eq!(accounts.check_name("  Anna  ").await.unwrap(), "Anna");
    assert_eq!(accounts.check_name("Jürgen").await.unwrap(), "Jürgen");
    for bad in [
        "",
        "   ",
        "krisburm",
        "KRIS BURM",
        "kris.burm!",
        "Kr\u{456}s Burm",
        "\u{39a}ris_\u{412}urm",
        "Computer (level 4)",
        "Deleted Player 3",
        "C\u{43e}mputer",
        "a\u{200B}b",
        "tab\there",
        "---",
        "abcdefghijklmnopqrstuvwxy",
    ] {
        let refused = accounts.check_name(bad).await.unwrap_err();
        assert_eq!(refused.code, ErrorCode::BadName, "{bad:?}");
    }
}
