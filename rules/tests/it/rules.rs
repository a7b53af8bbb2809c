//! One test per clause of RULES.md, named after the rule it protects.
//!
//! Positions are built by playing scripts from the start; `_` is a filler drop far from
//! the scene (see `common`).

use punct_rules::{
    Cell, Color, DrawReason, Game, IllegalTurn, Kind, Line, Outcome, Placement, Side, Turn,
    Variant, WinReason, perft,
};

use crate::common::{after, cell, level_at, play_fillers_to_end, refused, setup};
use Variant::{Basic, Standard};

fn cells(names: &str) -> Vec<Cell> {
    names.split_whitespace().map(cell).collect()
}

fn win(winner: Color, reason: WinReason) -> Option<Outcome> {
    Some(Outcome::Win { winner, reason })
}

fn draw(reason: DrawReason) -> Option<Outcome> {
    Some(Outcome::Draw { reason })
}

// 1. Board

#[test]
fn board_has_211_cells_in_the_listed_columns() {
    let ranges = [
        ('A', 2, 8),
        ('B', 1, 10),
        ('C', 1, 11),
        ('D', 1, 12),
        ('E', 1, 13),
        ('F', 1, 14),
        ('G', 1, 15),
        ('H', 1, 16),
        ('I', 2, 16),
        ('J', 2, 17),
        ('K', 3, 17),
        ('L', 4, 17),
        ('M', 5, 17),
        ('N', 6, 17),
        ('O', 7, 17),
        ('P', 8, 17),
        ('Q', 10, 16),
    ];
    let mut count = 0;
    for (letter, low, high) in ranges {
        let col = letter as u8 - b'A' + 1;
        for row in 1..=17 {
            let on = Cell::from_coords(col, row).is_some();
            assert_eq!(on, (low..=high).contains(&row), "{letter}{row}");
            count += on as usize;
        }
    }
    assert_eq!(count, 211);
    assert_eq!(Cell::all().count(), 211);
}

#[test]
fn board_corners_are_removed() {
    for name in ["A1", "A9", "I1", "I17", "Q9", "Q17"] {
        assert!(name.parse::<Cell>().is_err(), "{name}");
    }
}

#[test]
fn neighbours_are_the_six_listed_offsets() {
    let i9 = cell("I9");
    let mut n: Vec<Cell> = i9.neighbours().collect();
    n.sort();
    assert_eq!(n, cells("H8 H9 I8 I10 J9 J10"));
    // On the rim fewer neighbours exist.
    let mut a2: Vec<Cell> = cell("A2").neighbours().collect();
    a2.sort();
    assert_eq!(a2, cells("A3 B2 B3"));
}

#[test]
fn lines_are_column_row_and_diagonal() {
    assert_eq!(Line::through(cell("C4"), cell("C9")), Some(Line::Column));
    assert_eq!(Line::through(cell("C4"), cell("K4")), Some(Line::Row));
    assert_eq!(Line::through(cell("C4"), cell("F7")), Some(Line::Diagonal));
    assert_eq!(Line::through(cell("C4"), cell("D6")), None);
}

#[test]
fn central_hexagon_is_the_19_listed_cells() {
    let listed = cells("G7 G8 G9 H7 H8 H9 H10 I7 I8 I9 I10 I11 J8 J9 J10 J11 K9 K10 K11");
    let centre: Vec<Cell> = Cell::centre().iter().collect();
    assert_eq!(centre, listed);
    assert!(Cell::all().filter(|c| c.is_central()).eq(listed));
}

#[test]
fn sides_are_the_three_listed_pairs() {
    let expect = [
        (Side::West, "A2 A3 A4 A5 A6 A7 A8"),
        (Side::East, "Q10 Q11 Q12 Q13 Q14 Q15 Q16"),
        (Side::SouthWest, "B1 C1 D1 E1 F1 G1 H1"),
        (Side::NorthEast, "J17 K17 L17 M17 N17 O17 P17"),
        (Side::SouthEast, "J2 K3 L4 M5 N6 O7 P8"),
        (Side::NorthWest, "B10 C11 D12 E13 F14 G15 H16"),
    ];
    let mut seen = punct_rules::CellSet::EMPTY;
    for (side, names) in expect {
        let listed = cells(names);
        assert_eq!(side.cells().iter().collect::<Vec<_>>(), listed, "{side:?}");
        assert!(!seen.intersects(side.cells()), "no cell is on two sides");
        seen = seen.union(side.cells());
    }
    assert_eq!(seen.len(), 42);
    for (a, b) in Side::PAIRS {
        assert_eq!(a.opposite(), b);
    }
}

// 2. Pieces

#[test]
fn each_player_has_18_pieces_of_the_listed_kinds() {
    let game = Game::new(Standard);
    for color in Color::ALL {
        let reserve = game.position().reserve(color);
        let counts: Vec<u8> = Kind::ALL.iter().map(|&k| reserve.count(k)).collect();
        assert_eq!(counts, [2, 4, 2, 2, 2, 6]);
        assert_eq!(reserve.total(), 18);
    }
}

#[test]
fn three_cells_with_the_punct_marked_determine_the_kind() {
    let kind = |p: &str, a: &str, b: &str| {
        Placement::from_cells(cell(p), [cell(a), cell(b)]).map(|p| p.kind())
    };
    assert_eq!(kind("E5", "E4", "E6"), Some(Kind::StraightMiddle));
    assert_eq!(kind("E4", "E5", "E6"), Some(Kind::StraightEnd));
    // E5 → E4 is south, E5 → F6 north-east: 120° apart, a corner PÜNCT.
    assert_eq!(kind("E5", "E4", "F6"), Some(Kind::AngularCorner));
    // From E4 north to E5, then north-west (a left turn) to D5, or north-east to F6.
    assert_eq!(kind("E4", "E5", "D5"), Some(Kind::AngularLeft));
    assert_eq!(kind("E4", "E5", "F6"), Some(Kind::AngularRight));
    assert_eq!(kind("E4", "E5", "F5"), Some(Kind::Triangle));
    assert_eq!(kind("E4", "E6", "E8"), None);
    // Mirror images are different kinds and are never flipped into each other.
    let left = Placement::from_cells(cell("E4"), [cell("E5"), cell("D5")]).unwrap();
    assert!(left.rotations().all(|p| p.kind() == Kind::AngularLeft));
    assert!(Placement::of_kind(Kind::AngularRight, cell("E4"), [cell("E5"), cell("D5")]).is_none());
}

#[test]
fn middle_punct_straight_has_three_orientations_others_six() {
    let centre = cell("I9");
    for kind in Kind::ALL {
        let some = Placement::new(kind, centre, 0).unwrap();
        let distinct: std::collections::HashSet<_> = some.rotations().collect();
        let expected = if kind == Kind::StraightMiddle { 3 } else { 6 };
        assert_eq!(distinct.len(), expected, "{kind:?}");
    }
}

// 3.1 Drop

#[test]
fn opening_has_4986_drops_in_both_variants() {
    for variant in [Standard, Basic] {
        let game = Game::new(variant);
        let turns = game.legal_turns();
        assert_eq!(turns.len(), 4986);
        assert_eq!(perft(&game, 1), 4986);
        assert!(turns.iter().all(|t| t.is_drop()));
    }
}

#[test]
fn drop_needs_three_empty_cells() {
    let game = setup(Standard, "C4:C5,D5", &[]);
    assert_eq!(
        refused(&game, "D5:E5,E6"),
        IllegalTurn::DropOnOccupiedCell(cell("D5"))
    );
}

#[test]
fn drop_must_form_a_piece_from_the_reserve() {
    let game = setup(Standard, "B3:B2,B4 _ C3:C2,C4 _", &["D3:D2,D4"]);
    assert_eq!(
        refused(&game, "D3:D2,D4"),
        IllegalTurn::ReserveEmpty(Kind::StraightMiddle)
    );
    assert_eq!(refused(&game, "D3:D5,D7"), IllegalTurn::NotAPiece);
}

#[test]
fn standard_drop_never_touches_the_central_hexagon() {
    let game = Game::new(Standard);
    assert_eq!(
        refused(&game, "G9:G10,H11"),
        IllegalTurn::DropInCentre(cell("G9"))
    );
    let game = setup(Standard, "C4:C5,D5", &[]);
    assert_eq!(
        refused(&game, "F6:G7,F7"),
        IllegalTurn::DropInCentre(cell("G7"))
    );
    let game = setup(Standard, "C4:C5,D5 _", &[]);
    assert_eq!(
        refused(&game, "I9:I10,J10"),
        IllegalTurn::DropInCentre(cell("I9"))
    );
    assert!(game.legal_turns().iter().filter(|t| t.is_drop()).all(|t| {
        match *t {
            Turn::Drop { punct, minors } => !Placement::from_cells(punct, minors)
                .unwrap()
                .touches_centre(),
            _ => unreachable!(),
        }
    }));
}

#[test]
fn basic_game_bars_only_whites_first_drop_from_the_centre() {
    let game = Game::new(Basic);
    assert_eq!(
        refused(&game, "I9:I10,J10"),
        IllegalTurn::DropInCentre(cell("I9"))
    );
    let game = setup(Basic, "C4:C5,D5 I9:I10,J10 H8:H9,I8", &[]);
    assert_eq!(game.turns().len(), 3);
    assert_eq!(game.position().pieces_in_play(Color::White), 2);
}

// 3.2 Move

#[test]
fn move_travels_along_all_three_lines_both_ways() {
    // A lone straight piece on E4–E6 (PÜNCT E4, pointing north).
    // One destination in each of the six directions: down, up, west, east, south-west
    // and north-east.
    let targets = [
        "E2:E3,E4",
        "E10:E11,E12",
        "B4:B5,B6",
        "K4:K5,K6",
        "B1:B2,B3",
        "H7:H8,H9",
    ];
    let game = setup(Standard, "E4:E5,E6 _", &targets);
    for target in targets {
        let turn = format!("E4-{target}");
        let next = after(&game, &turn);
        let Ok(Turn::Move { to, .. }) = turn.parse() else {
            unreachable!()
        };
        assert!(next.position().top(to).unwrap().is_punct, "{turn}");
    }
    let from = cell("E4");
    let moves: Vec<Turn> = game
        .legal_turns()
        .into_iter()
        .filter(|t| !t.is_drop())
        .collect();
    assert!(!moves.is_empty());
    for turn in &moves {
        let Turn::Move { from: f, to, .. } = *turn else {
            unreachable!()
        };
        assert_eq!(f, from);
        assert!(to == from || Line::through(from, to).is_some(), "{turn}");
    }
    assert_eq!(
        refused(&game, "E4-F6:F7,F8"),
        IllegalTurn::NotOnLine {
            from,
            to: cell("F6")
        }
    );
}

#[test]
fn move_passes_over_anything() {
    // White's piece on E4–E6 crosses Black's piece on E8–E10 to land beyond it.
    let game = setup(Standard, "E4:E5,E6 E8:E9,E10", &[]);
    let next = after(&game, "E4-E11:E12,E13");
    assert_eq!(level_at(&next, "E11"), 1);
}

#[test]
fn only_your_own_pieces_move() {
    let game = setup(Standard, "E4:E5,E6 L10:L11,L12", &[]);
    assert_eq!(
        refused(&game, "L10-L9:L10,L11"),
        IllegalTurn::NotYourPiece(cell("L10"))
    );
    assert_eq!(
        refused(&game, "C3-C4:C5,C6"),
        IllegalTurn::NoPieceAt(cell("C3"))
    );
    // A minor dot does not name the piece: only its PÜNCT does.
    assert_eq!(
        refused(&game, "E5-E8:E9,E10"),
        IllegalTurn::NoPieceAt(cell("E5"))
    );
}

#[test]
fn rotation_in_place_is_a_move() {
    let game = setup(Standard, "E4:E5,E6 _", &[]);
    let next = after(&game, "E4-E4:F4,G4");
    let top = next.position().top(cell("F4")).unwrap();
    assert_eq!(top.level, 1);
    assert!(!top.is_punct);
    assert!(next.position().top(cell("E5")).is_none());
}

#[test]
fn move_must_change_the_placement() {
    let game = setup(Standard, "E5:E4,E6 _", &[]);
    // A middle-PÜNCT straight piece turned 180° covers the same cells: not a move.
    assert_eq!(refused(&game, "E5-E5:E6,E4"), IllegalTurn::NullMove);
    // Reversing an end-PÜNCT straight piece onto its own cells is a move.
    let game = setup(Standard, "E4:E5,E6 _", &[]);
    assert_eq!(refused(&game, "E4-E4:E5,E6"), IllegalTurn::NullMove);
    let next = after(&game, "E4-E6:E4,E5");
    assert!(next.position().top(cell("E6")).unwrap().is_punct);
    assert!(!next.position().top(cell("E4")).unwrap().is_punct);
}

#[test]
fn move_may_land_partly_on_its_own_former_cells() {
    let game = setup(Standard, "E4:E5,E6 _", &[]);
    let next = after(&game, "E4-E5:E6,E7");
    assert_eq!(level_at(&next, "E5"), 1);
    assert!(next.position().top(cell("E4")).is_none());
}

#[test]
fn all_dots_must_end_on_the_board() {
    // A piece on the rim cannot turn any dot off the board: such turns are never generated.
    let game = setup(Standard, "A2:A3,A4 _", &[]);
    assert!(Placement::new(Kind::StraightEnd, cell("A2"), 2).is_none());
    for turn in game.legal_turns() {
        if let Turn::Move { to, minors, .. } = turn {
            assert!(Placement::of_kind(Kind::StraightEnd, to, minors).is_some());
        }
    }
}

// 3.3 Landing, jumps and bridges

/// White triangle on E4, E5, F5 and a second white triangle dropped on E9, E10, F10.
const TWO_TRIANGLES: &str = "E4:E5,F5 _ E9:E10,F10 _";

#[test]
fn jump_lands_one_level_up_onto_own_punct() {
    let game = setup(Standard, TWO_TRIANGLES, &[]);
    let next = after(&game, "E9-E4:E5,F5");
    assert_eq!(level_at(&next, "E4"), 2);
    assert_eq!(next.position().stack(cell("E4")).len(), 2);
}

#[test]
fn jump_onto_own_minor_dot() {
    let game = setup(Standard, TWO_TRIANGLES, &[]);
    // PÜNCT onto E5, the first triangle's minor dot.
    let next = after(&game, "E9-E5:E4,F5");
    assert_eq!(level_at(&next, "E5"), 2);
}

#[test]
fn punct_never_lands_on_an_opponents_piece() {
    let game = setup(Standard, "E9:E10,F10 E4:E5,F5", &[]);
    assert_eq!(
        refused(&game, "E9-E4:E5,F5"),
        IllegalTurn::PunctOnOpponent(cell("E4"))
    );
}

/// White straight piece E3–E5 (PÜNCT E4), Black triangle F5 F6 G6 beside it, and White
/// pieces ready to jump: a triangle on E9 and an end-PÜNCT straight piece on E11–E13.
const BESIDE_BLACK: &str = "E4:E3,E5 F5:F6,G6 E9:E10,F10 _ E11:E12,E13 _";

#[test]
fn minor_dots_may_land_on_opponent_dots() {
    let game = setup(Standard, BESIDE_BLACK, &[]);
    // The triangle's PÜNCT goes onto White's E5; its minors cover Black's F5 and F6.
    let next = after(&game, "E9-E5:F5,F6");
    assert_eq!(level_at(&next, "F5"), 2);
    assert_eq!(
        next.position().top(cell("F5")).unwrap().piece.color(),
        Color::White
    );
}

#[test]
fn minor_cells_must_be_at_the_puncts_height() {
    let game = setup(Standard, BESIDE_BLACK, &[]);
    // PÜNCT on E5 (height 1), middle on F5 (height 1), far end on the empty G5.
    assert_eq!(
        refused(&game, "E11-E5:F5,G5"),
        IllegalTurn::UnevenLanding {
            cell: cell("G5"),
            expected: 1,
            found: 0
        }
    );
    // A PÜNCT on the ground cannot lift its minor dots onto pieces.
    assert_eq!(
        refused(&game, "E11-E6:F6,G6"),
        IllegalTurn::PunctUnsupported(cell("E6"))
    );
}

#[test]
fn minor_cell_higher_than_the_punct_is_refused() {
    // White triangle jumps to level 2 over E4 E5 F5; a White straight piece then tries to
    // land with its PÜNCT on D4 (height 1) and its middle dot on E4 (height 2).
    let script = "E4:E5,F5 _ E9:E10,F10 _ E9-E4:E5,F5 _ D4:C4,B4 _ D10:D11,D12 _";
    let game = setup(Standard, script, &[]);
    assert_eq!(
        refused(&game, "D10-D4:E4,F4"),
        IllegalTurn::UnevenLanding {
            cell: cell("E4"),
            expected: 1,
            found: 2
        }
    );
}

#[test]
fn levels_are_unlimited_and_pieces_jump_back_to_the_ground() {
    let script = "E4:E5,F5 _ E9:E10,F10 _ E9-E4:E5,F5 _ C4:C5,D5 _ C4-E4:E5,F5 _";
    let game = setup(Standard, script, &[]);
    assert_eq!(level_at(&game, "E4"), 3);
    let next = after(&game, "E4-E12:E13,F13");
    assert_eq!(level_at(&next, "E12"), 1);
    assert_eq!(level_at(&next, "E4"), 2);
}

/// White straight piece D4 E4 F4 (PÜNCT E4), Black's D6 E6 F6 two rows up, E5 empty
/// between them; White pieces waiting: an end-PÜNCT straight piece on E10–E12, another on
/// G12–G14, a middle-PÜNCT straight piece on K4–K6, a triangle on E8.
const GAP: &str = "E4:D4,F4 E6:D6,F6 E10:E11,E12 _ G12:G13,G14 _ K5:K4,K6 _ E8:E9,F9 _";

fn gap_bridged() -> Game {
    setup(Standard, &format!("{GAP} E10-E4:E5,E6 _"), &["E5:F5,G5"])
}

#[test]
fn straight_end_punct_bridges_an_empty_cell() {
    let game = gap_bridged();
    let bridge = game.position().top(cell("E4")).unwrap().piece;
    assert_eq!(level_at(&game, "E4"), 2);
    assert_eq!(game.position().top(cell("E5")).unwrap().level, 2);
    assert!(game.position().is_bridge(bridge));
    assert_eq!(game.position().bridge_gap(bridge), Some(cell("E5")));
    assert_eq!(game.position().stack(cell("E5")).len(), 1);
}

#[test]
fn drop_under_a_bridge_is_refused() {
    let mut game = gap_bridged();
    game.play("G12-G11:G12,G13".parse().unwrap()).unwrap();
    assert_eq!(
        refused(&game, "E5:F5,G5"),
        IllegalTurn::DropUnderBridge(cell("E5"))
    );
}

#[test]
fn landing_under_a_bridge_is_refused() {
    let game = gap_bridged();
    assert_eq!(
        refused(&game, "G12-G5:E5,F5"),
        IllegalTurn::UnderBridge(cell("E5"))
    );
}

#[test]
fn landing_on_top_of_a_bridge_middle_is_allowed() {
    let game = gap_bridged();
    let next = after(&game, "K5-E5:E4,E6");
    assert_eq!(level_at(&next, "E5"), 3);
}

#[test]
fn middle_punct_pieces_cannot_bridge() {
    let game = setup(Standard, GAP, &[]);
    assert_eq!(
        refused(&game, "K5-E5:E4,E6"),
        IllegalTurn::CannotBridge(Kind::StraightMiddle)
    );
}

#[test]
fn triangles_cannot_bridge() {
    let game = setup(Standard, GAP, &[]);
    // PÜNCT on E4 and a minor on F4 (both height 1); the other minor over empty F5.
    assert_eq!(
        refused(&game, "E8-E4:F4,F5"),
        IllegalTurn::CannotBridge(Kind::Triangle)
    );
}

/// Ground: White rows C4–E4 and C6–E6, Black row C5–E5 between them. White's two
/// middle-PÜNCT straight pieces jump onto the white rows, making two platforms at height
/// 2 with Black's row at height 1 between them.
const PLATFORMS: &str = "C4:D4,E4 C5:D5,E5 C6:D6,E6 _ D10:C10,E10 _ D10-D4:C4,E4 _ \
                         D11:C11,E11 _ D11-D6:C6,E6 _";

#[test]
fn straight_bridge_over_a_lower_piece_freezes_it() {
    let script = format!("{PLATFORMS} E11:E12,E13 _ E11-E4:E5,E6");
    let game = setup(Standard, &script, &[]);
    let bridge = game.position().top(cell("E4")).unwrap().piece;
    assert_eq!(level_at(&game, "E4"), 3);
    assert!(game.position().is_bridge(bridge));
    let under = game.position().stack(cell("E5"));
    assert_eq!(under.iter().map(|d| d.level).collect::<Vec<_>>(), [3, 1]);
    // Black's row C5–E5 is frozen by the bridge over E5 alone.
    assert!(!game.position().is_free(under[1].piece));
    assert_eq!(
        refused(&game, "C5-C8:D8,E8"),
        IllegalTurn::Frozen(cell("C5"))
    );
}

#[test]
fn angular_bridge_over_a_lower_piece() {
    let script = format!("{PLATFORMS} C10:C11,D12 _ C10-C4:C5,D6");
    let game = setup(Standard, &script, &[]);
    let bridge = game.position().top(cell("C4")).unwrap().piece;
    assert_eq!(bridge.kind(), Kind::AngularRight);
    assert_eq!(level_at(&game, "C4"), 3);
    assert_eq!(game.position().bridge_gap(bridge), Some(cell("C5")));
}

#[test]
fn angular_bridge_over_an_empty_cell() {
    // A left-turning angular piece with its PÜNCT on White's C4 and its far end on
    // Black's D6 (both height 1), its middle over the empty D5.
    let script = "C4:D4,E4 D6:C6,E6 C9:D10,D11 _ C9-C4:D5,D6";
    let game = setup(Standard, script, &[]);
    let bridge = game.position().top(cell("C4")).unwrap().piece;
    assert_eq!(bridge.kind(), Kind::AngularLeft);
    assert_eq!(game.position().bridge_gap(bridge), Some(cell("D5")));
    assert!(game.position().top(cell("D5")).unwrap().level == 2);
}

#[test]
fn angular_bridge_turned_180_degrees_rests_on_one_piece() {
    // An angular piece with its corner on C5 and ends on C4 and D6; a left-turning angular
    // piece lands on those two ends with its middle over D5, the other cell next to both.
    let script = "C5:C4,D6 _ C9:D10,D11 _ C9-C4:D5,D6";
    let game = setup(Standard, script, &[]);
    let bridge = game.position().top(cell("C4")).unwrap().piece;
    assert_eq!(level_at(&game, "C4"), 2);
    assert_eq!(game.position().bridge_gap(bridge), Some(cell("D5")));
    assert!(game.position().stack(cell("D5")).len() == 1);
}

#[test]
fn a_covered_piece_is_frozen_until_uncovered() {
    // The second triangle jumps with its PÜNCT on E5, covering the first one's PÜNCT.
    let game = setup(Standard, &format!("{TWO_TRIANGLES} E9-E5:E4,F5 _"), &[]);
    let below = game.position().stack(cell("E4"))[1].piece;
    assert!(!game.position().is_free(below));
    assert_eq!(
        refused(&game, "E4-E8:E9,F9"),
        IllegalTurn::Frozen(cell("E4"))
    );
    let game = after(&after(&game, "E5-E12:E13,F13"), "L12:L13,M13");
    assert!(game.position().is_free(below));
    let game = after(&game, "E4-E8:E9,F9");
    assert_eq!(level_at(&game, "E8"), 1);
}

// 4. End of the game

const BLACK_ROW_2: [&str; 6] = [
    "A2:B2,C2",
    "D2:E2,F2",
    "G2:H2,I2",
    "J2:K3,L4",
    "N6:M5,O7",
    "P8:P9,Q10",
];

#[test]
fn connection_west_to_east_wins() {
    let script = "A8:B9,C10 _ D11:E12,F13 _ G14:H15,I16 _ J16:K16,L16 _ N16:M16,O16 _";
    let game = setup(Standard, script, &["P16:P15,Q16"]);
    assert_eq!(game.outcome(), None);
    let next = after(&game, "P16:P15,Q16");
    assert!(next.position().is_connected(Color::White));
    assert_eq!(next.outcome(), win(Color::White, WinReason::Connection));
    // The chain the page highlights: the one line of dots from A8 to Q16.
    assert_eq!(
        chain(&next, Color::White, [Side::West, Side::East]),
        "A8 B9 C10 D11 E12 F13 G14 H15 I16 J16 K16 L16 M16 N16 O16 P16 Q16"
    );
    assert_eq!(next.position().winning_chain(Color::Black), None);
    assert_eq!(game.position().winning_chain(Color::White), None);
}

/// The winning chain of `color`, checked to be one: it links `sides`, every cell shows
/// the colour on top, each cell neighbours the one before and none repeats. Answers
/// its cells.
fn chain(game: &Game, color: Color, sides: [Side; 2]) -> String {
    let position = game.position();
    let chain = position.winning_chain(color).expect("connected");
    assert_eq!(chain.sides, sides);
    let (first, last) = (chain.cells[0], *chain.cells.last().expect("cells"));
    assert!(sides[0].cells().contains(first) && sides[1].cells().contains(last));
    for (i, &cell) in chain.cells.iter().enumerate() {
        assert!(position.visible(color).contains(cell), "{cell} not {color}");
        assert!(!chain.cells[..i].contains(&cell), "{cell} twice");
        if i > 0 {
            assert!(cell.neighbours().any(|n| n == chain.cells[i - 1]));
        }
    }
    let names: Vec<String> = chain.cells.iter().map(ToString::to_string).collect();
    names.join(" ")
}

#[test]
fn connection_south_west_to_north_east_wins() {
    let script = "F1:F2,F3 _ F4:F5,F6 _ F7:F8,F9 _ F10:F11,F12 _ F13:F14,G15 _";
    let game = setup(Standard, script, &["H16:I16,J17"]);
    assert_eq!(game.outcome(), None);
    let next = after(&game, "H16:I16,J17");
    assert_eq!(next.outcome(), win(Color::White, WinReason::Connection));
    let cells = chain(&next, Color::White, [Side::SouthWest, Side::NorthEast]);
    assert!(
        cells.starts_with("F1 ") && cells.ends_with(" J17"),
        "{cells}"
    );
}

#[test]
fn connection_south_east_to_north_west_wins() {
    let script = "P8:P9,P10 _ P11:P12,P13 _ P14:P15,P16 _ O16:N16,M16 _ K16:J16,L16 _";
    let game = setup(Standard, script, &["I16:H16,H15"]);
    assert_eq!(game.outcome(), None);
    let next = after(&game, "I16:H16,H15");
    assert_eq!(next.outcome(), win(Color::White, WinReason::Connection));
    let cells = chain(&next, Color::White, [Side::SouthEast, Side::NorthWest]);
    assert!(
        cells.starts_with("P8 ") && cells.ends_with(" H16"),
        "{cells}"
    );
}

#[test]
fn connection_runs_through_dots_at_different_levels() {
    // White's row-2 chain crosses Black's triangle G2 H2 H3 on a piece at level 2.
    let script = "A2:B2,C2 G2:H2,H3 D2:E2,F2 _ F5:F6,F7 _ F5-F2:G2,H2 _ I2:J2,K3 _ \
                  L4:M5,N6 _ O7:P8,P9 _";
    let game = setup(Standard, script, &["Q10:Q11,P10"]);
    assert_eq!(level_at(&game, "G2"), 2);
    assert_eq!(game.outcome(), None);
    let next = after(&game, "Q10:Q11,P10");
    assert_eq!(next.outcome(), win(Color::White, WinReason::Connection));
    // The chain runs over G2, the raised dot.
    let cells = chain(&next, Color::White, [Side::West, Side::East]);
    assert!(
        cells.starts_with("A2 ") && cells.contains(" G2 "),
        "{cells}"
    );
}

/// Black's chain A2 … Q10 is complete but for H2, covered by a White triangle standing on
/// White's triangle at H3. White's chain A8 … Q16 misses only H15 H16 I16.
fn both_nearly_connected() -> Game {
    let script = format!(
        "A8:B9,C10 {} D11:E12,F13 {} G14:F14,G15 {} J16:K16,L16 {} N16:M16,O16 {} \
         H3:H4,I4 _ H5:H6,I6 _ H5-H3:G2,H2 {} P16:P15,Q16 _",
        BLACK_ROW_2[0],
        BLACK_ROW_2[1],
        BLACK_ROW_2[2],
        BLACK_ROW_2[3],
        BLACK_ROW_2[4],
        BLACK_ROW_2[5]
    );
    setup(Standard, &script, &["H3-H15:H16,I16", "H3-H12:H13,I13"])
}

#[test]
fn covering_an_opponent_dot_breaks_their_connection() {
    let game = both_nearly_connected();
    assert!(!game.position().is_connected(Color::Black));
    assert_eq!(game.outcome(), None);
    assert!(!game.position().visible(Color::Black).contains(cell("H2")));
}

#[test]
fn mover_wins_when_both_players_are_connected() {
    let next = after(&both_nearly_connected(), "H3-H15:H16,I16");
    assert!(next.position().is_connected(Color::Black));
    assert!(next.position().is_connected(Color::White));
    assert_eq!(next.outcome(), win(Color::White, WinReason::Connection));
    chain(&next, Color::Black, [Side::West, Side::East]);
    chain(&next, Color::White, [Side::West, Side::East]);
}

#[test]
fn uncovering_the_opponents_connection_loses() {
    let next = after(&both_nearly_connected(), "H3-H12:H13,I13");
    assert!(!next.position().is_connected(Color::White));
    assert_eq!(next.outcome(), win(Color::Black, WinReason::Connection));
}

#[test]
fn eighteenth_drop_ends_the_standard_game_with_a_centre_count_win() {
    let script = "I4:I5,I6 _ I4-I9:I10,I11";
    let mut game = setup(Standard, script, &[]);
    play_fillers_to_end(&mut game, script);
    assert_eq!(game.outcome(), win(Color::White, WinReason::Centre));
    // White spent a turn moving, so Black drops an 18th piece first.
    assert_eq!(game.position().pieces_in_play(Color::Black), 18);
    assert_eq!(game.position().pieces_in_play(Color::White), 17);
    assert_eq!(game.position().centre_count(Color::White), 3);
}

#[test]
fn equal_centre_count_is_a_draw() {
    let script = "I4:I5,I6 K4:K5,K6 I4-I9:I10,I11 K4-K9:K10,K11";
    let mut game = setup(Standard, script, &[]);
    play_fillers_to_end(&mut game, script);
    assert_eq!(game.outcome(), draw(DrawReason::CentreTie));
    assert_eq!(game.position().centre_count(Color::Black), 3);
}

#[test]
fn basic_game_is_a_draw_on_the_eighteenth_drop() {
    let mut game = Game::new(Basic);
    play_fillers_to_end(&mut game, "");
    assert_eq!(game.outcome(), draw(DrawReason::BasicEnd));
    assert_eq!(game.turns().len(), 35);
}

#[test]
fn third_occurrence_of_a_position_is_a_draw() {
    let shuttle = "E4-E3:E4,E5 L10-L9:L10,L11 E3-E4:E5,E6 L9-L10:L11,L12";
    let game = setup(Standard, &format!("E4:E5,E6 L10:L11,L12 {shuttle}"), &[]);
    assert_eq!(game.outcome(), None, "second occurrence");
    let mut game = game;
    let turns: Vec<&str> = shuttle.split_whitespace().collect();
    for turn in &turns[..3] {
        game = after(&game, turn);
        assert_eq!(game.outcome(), None);
    }
    let game = after(&game, turns[3]);
    assert_eq!(game.outcome(), draw(DrawReason::Repetition));
}

#[test]
fn no_turn_follows_the_end_of_the_game() {
    let script = "A8:B9,C10 _ D11:E12,F13 _ G14:H15,I16 _ J16:K16,L16 _ N16:M16,O16 _ \
                  P16:P15,Q16";
    let game = setup(Standard, script, &[]);
    assert!(game.is_over());
    assert!(game.legal_turns().is_empty());
    assert_eq!(refused(&game, "L10:L11,M11"), IllegalTurn::GameOver);
    assert_eq!(perft(&game, 1), 0);
}

#[test]
fn pass_is_refused_while_a_turn_exists() {
    let game = Game::new(Standard);
    assert_eq!(refused(&game, "pass"), IllegalTurn::PassNotAllowed);
}

// 5. Notation

#[test]
fn notation_accepts_lower_case_and_either_minor_order() {
    let a: Turn = "c4:d5,c5".parse().unwrap();
    let b: Turn = "C4:C5,D5".parse().unwrap();
    assert_eq!(a, b);
    assert_eq!(a.to_string(), "C4:C5,D5");
    let m: Turn = "f5-f8:g9,e8".parse().unwrap();
    assert_eq!(m.to_string(), "F5-F8:E8,G9");
    assert_eq!("PASS".parse::<Turn>().unwrap(), Turn::Pass);
    assert_eq!(Turn::Pass.to_string(), "pass");
    assert_eq!(
        "F5-F5:F6,G6".parse::<Turn>().unwrap().to_string(),
        "F5-F5:F6,G6"
    );
}

#[test]
fn notation_errors_are_typed() {
    use punct_rules::{ParseCellError, ParseTurnError};
    assert_eq!("".parse::<Turn>(), Err(ParseTurnError::Empty));
    assert!(matches!(
        "C4".parse::<Turn>(),
        Err(ParseTurnError::Syntax(_))
    ));
    assert!(matches!(
        "C4-C5".parse::<Turn>(),
        Err(ParseTurnError::Syntax(_))
    ));
    assert_eq!(
        "A1:A2,B2".parse::<Turn>(),
        Err(ParseTurnError::Cell(ParseCellError::OffBoard("A1".into())))
    );
    assert!(matches!(
        "44:C5,D5".parse::<Turn>(),
        Err(ParseTurnError::Cell(ParseCellError::Syntax(_)))
    ));
    assert_eq!(
        "Z4:C5,D5".parse::<Turn>(),
        Err(ParseTurnError::Cell(ParseCellError::OffBoard("Z4".into())))
    );
    assert_eq!(
        "C4:C5,C5".parse::<Turn>(),
        Err(ParseTurnError::RepeatedCell(cell("C5")))
    );
    assert_eq!(
        "C4:C4,C5".parse::<Turn>(),
        Err(ParseTurnError::RepeatedCell(cell("C4")))
    );
}

#[test]
fn record_text_round_trips_and_reports_the_bad_line() {
    let game = setup(Standard, TWO_TRIANGLES, &[]);
    let text = game.record();
    assert!(text.starts_with('#'));
    let again = Game::from_record(Standard, &text).unwrap();
    assert_eq!(again.turns(), game.turns());
    assert_eq!(again.position(), game.position());

    let bad = Game::from_record(Standard, "# start\n\nc4:c5,d5\nc4:c5,d5\n").unwrap_err();
    assert_eq!(bad.line, 4);
    assert_eq!(
        bad.kind,
        punct_rules::RecordErrorKind::Illegal(IllegalTurn::DropOnOccupiedCell(cell("C4")))
    );
    let bad = Game::from_record(Standard, "c4:c5,d5\nnonsense\n").unwrap_err();
    assert_eq!(bad.line, 2);
    assert!(bad.to_string().starts_with("line 2:"));
}
