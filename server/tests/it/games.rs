//! Games prepared with the rules engine, for the server to replay.

use punct_rules::{Color, Game, Outcome, Turn, Variant, WinReason};

/// White links the south-west side (`B1`) to the north-east side (`K17`) with six drops
/// along the west rim while Black drops beside them. Found by a greedy search with the
/// rules engine (White: the drop that leaves the fewest cells to cover; Black: the drop
/// that hinders White least); legal in both variants, as [`white_connects`] checks.
const WHITE_CONNECTS: &str = "\
# White connects in six drops
B2:B1,B3
A3:A2,A4
B5:B4,B6
A6:A5,A7
B7:B8,B9
B10:C11,D12
C10:D11,E12
C1:D1,E1
F13:G14,H15
E13:F14,G15
I15:J16,K17
";

/// How the game of [`white_connects`] ends.
pub(crate) const WHITE_CONNECTED: Outcome = Outcome::Win {
    winner: Color::White,
    reason: WinReason::Connection,
};

/// The turns of a game that White wins by connection, checked with the rules engine.
pub(crate) fn white_connects(variant: Variant) -> Vec<Turn> {
    let game = Game::from_record(variant, WHITE_CONNECTS).expect("every turn is legal");
    assert_eq!(
        game.outcome(),
        Some(WHITE_CONNECTED),
        "the last turn wins by connection"
    );
    game.turns().to_vec()
}
