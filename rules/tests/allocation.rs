//! The hot path allocates nothing: generating and counting turns into a buffer that is
//! kept, checking a turn, and playing it on a position and taking it back, as a search
//! or perft does for millions of positions.
//!
//! `allocation-counter` replaces the global allocator of this test binary only, and
//! counts the allocations of the thread that measures.

use punct_rules::{Game, Position, Variant};

/// Positions from the empty board to the late game, with stacks and bridges.
fn positions() -> Vec<Position> {
    let record = |name: &str| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/records")
            .join(name);
        let text = std::fs::read_to_string(&path).expect("a readable record");
        let variant = if name.contains("basic") {
            Variant::Basic
        } else {
            Variant::Standard
        };
        Game::from_record(variant, &text)
            .expect("a legal record")
            .position()
            .clone()
    };
    let mut positions = vec![
        Position::new(Variant::Standard),
        Position::new(Variant::Basic),
    ];
    positions.extend(
        [
            "midgame-standard.txt",
            "midgame-basic.txt",
            "late-standard.txt",
            "rims-standard.txt",
            "smothered-1.txt",
        ]
        .map(record),
    );
    positions
}

#[test]
fn generating_counting_and_playing_turns_allocate_nothing() {
    let positions = positions();
    // The buffers are made, and grown to the largest list, before measuring.
    let mut turns = Vec::new();
    let mut after = positions[0].clone();
    for position in &positions {
        position.legal_turns_into(&mut turns);
    }
    for position in &positions {
        let mut generated = 0;
        let info = allocation_counter::measure(|| {
            position.legal_turns_into(&mut turns);
            generated = position.count_legal_turns();
            assert!(position.has_legal_turn());
            for &turn in &turns {
                assert!(position.is_legal(turn).is_ok());
                after.clone_from(position);
                after.play(turn).expect("generated turns are legal");
                std::hint::black_box(after.hash());
            }
        });
        assert_eq!(generated, turns.len());
        assert_eq!(
            info.count_total,
            0,
            "{} allocations in a position with {} turns",
            info.count_total,
            turns.len()
        );
    }
}

/// The counter does count: a position's list of turns in a new buffer is allocated.
#[test]
fn a_new_list_of_turns_is_counted() {
    let position = Position::new(Variant::Standard);
    let info = allocation_counter::measure(|| {
        std::hint::black_box(position.legal_turns());
    });
    assert!(info.count_total > 0);
}
