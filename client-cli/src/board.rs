//! The board on screen. The rules crate's drawing (columns upright, a text line per half
//! row) takes 35 lines; a smaller terminal gets a compact one, a text line per row with
//! the columns slanting, as Hex boards are drawn. On both, a piece reads as one: its dots
//! share a letter colour unlike that of its neighbours of the same side, and where the
//! drawing leaves room between cells, links join them. The last turn and bridges are
//! marked, and [`legend`] says what each mark means.

use std::collections::HashMap;
use std::sync::LazyLock;

use punct_rules::{BoardLayout, Cell, Color, PieceId, Position, Turn, cell_symbol};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color as Paint, Modifier, Style};
use ratatui::text::Span;

/// Where the board's cells and coordinate labels go, from its top left corner.
#[derive(Clone, Debug)]
pub struct Geometry {
    /// Where each cell's two characters start, by cell index.
    cells: Vec<(u16, u16)>,
    /// The coordinate labels: where they start, and their text.
    labels: Vec<(u16, u16, String)>,
    /// Columns taken.
    pub width: u16,
    /// Lines taken.
    pub height: u16,
    /// Whether there is room between cells to join a piece's dots.
    pub links: bool,
}

/// The rules crate's drawing, as `punct rules show` prints it.
pub static FULL: LazyLock<Geometry> = LazyLock::new(|| {
    let layout = BoardLayout::new();
    let at = |(x, y): (usize, usize)| (x as u16, y as u16);
    Geometry::new(
        Cell::all().map(|c| at(layout.cell_origin(c))).collect(),
        layout
            .labels()
            .map(|(x, y, text)| {
                let (x, y) = at((x, y));
                (x, y, text.iter().collect())
            })
            .collect(),
    )
});

/// A text line per row, row 17 at the top; the columns slant up to the left, their
/// letters above the top row (I–Q) and below the bottom one (A–I), where they end.
pub static COMPACT: LazyLock<Geometry> = LazyLock::new(|| {
    // Neighbours in a row are two characters apart, and a row is half a cell left of the
    // row below, so that each cell touches its six neighbours. Shifted right later so
    // that the leftmost label starts at 0.
    let x = |col: u8, row: u8| 2 * i32::from(col) - i32::from(row);
    let line = |row: u8| 18 - i32::from(row);
    let mut labels = Vec::new();
    for row in 1..=17 {
        if let Some(first) = Cell::all().filter(|c| c.row() == row).map(Cell::col).min() {
            labels.push((x(first, row) - 3, line(row), format!("{row:>2}")));
        }
    }
    for col in 1..=17 {
        let letter = format!("{} ", char::from(b'A' + col - 1));
        if col >= 9 {
            labels.push((x(col, 18), line(18), letter.clone()));
        }
        if col <= 9 {
            labels.push((x(col, 0), line(0), letter));
        }
    }
    let cells: Vec<(i32, i32)> = Cell::all()
        .map(|c| (x(c.col(), c.row()), line(c.row())))
        .collect();
    let left = labels.iter().map(|&(x, ..)| x).min().unwrap_or(0);
    let at = |x: i32, y: i32| ((x - left) as u16, y as u16);
    Geometry::new(
        cells.into_iter().map(|(x, y)| at(x, y)).collect(),
        labels
            .into_iter()
            .map(|(x, y, text)| {
                let (x, y) = at(x, y);
                (x, y, text)
            })
            .collect(),
    )
});

impl Geometry {
    fn new(cells: Vec<(u16, u16)>, labels: Vec<(u16, u16, String)>) -> Geometry {
        let slots = cells
            .iter()
            .copied()
            .chain(labels.iter().map(|&(x, y, _)| (x, y)));
        let width = slots.clone().map(|(x, _)| x + 2).max().unwrap_or(0);
        let height = slots.map(|(_, y)| y + 1).max().unwrap_or(0);
        let mut geometry = Geometry {
            cells,
            labels,
            width,
            height,
            links: false,
        };
        geometry.links = Cell::all().any(|a| a.neighbours().any(|b| geometry.link(a, b).is_some()));
        geometry
    }

    /// The coordinate labels: where each starts, and its text.
    pub fn labels(&self) -> impl Iterator<Item = (u16, u16, &str)> {
        self.labels
            .iter()
            .map(|(x, y, text)| (*x, *y, text.as_str()))
    }

    /// Where `cell`'s two characters start.
    pub fn origin(&self, cell: Cell) -> (u16, u16) {
        self.cells[cell.index()]
    }

    /// Where the link between neighbours `a` and `b` goes, and its glyph, if the drawing
    /// leaves a gap between them: upright columns leave a line between the cells of a
    /// column, and a character between neighbouring columns, used on the line of the
    /// lower cell.
    fn link(&self, a: Cell, b: Cell) -> Option<(u16, u16, char)> {
        let (a, b) = (self.origin(a), self.origin(b));
        let ((lx, ly), (rx, ry)) = if a.0 <= b.0 { (a, b) } else { (b, a) };
        match (rx - lx, ly.abs_diff(ry)) {
            (0, 2) => Some((lx, ly.min(ry) + 1, '│')),
            (3, 1) if ly > ry => Some((lx + 2, ly, '╱')),
            (3, 1) => Some((lx + 2, ry, '╲')),
            _ => None,
        }
    }
}

/// What the board shows besides the position.
#[derive(Clone, Debug, Default)]
pub struct Marks {
    /// The selected cell.
    pub cursor: Option<Cell>,
    /// The destinations of the piece being picked.
    pub targets: Vec<Cell>,
    /// The turn shown before it is played.
    pub preview: Option<Turn>,
    /// The last turn played.
    pub last: Option<Turn>,
}

/// The background of the cells of the last turn's piece.
const LAST: Style = Style::new().fg(Paint::Black).bg(Paint::Yellow);

/// The background of the cell the last turn's piece left.
const ORIGIN: Style = Style::new().fg(Paint::White).bg(Paint::Blue);

/// The letter colours of each side's pieces, on its background: four, so that
/// neighbouring pieces of one side can nearly always differ.
const TINTS: [[Paint; 4]; 2] = [
    [Paint::Black, Paint::Blue, Paint::Red, Paint::Magenta],
    [
        Paint::White,
        Paint::LightYellow,
        Paint::LightCyan,
        Paint::LightGreen,
    ],
];

/// How the dots and links of a piece of `color` look: the side's background, the
/// piece's letter colour.
fn side_style(color: Color, tint: usize) -> Style {
    let fg = TINTS[color as usize][tint];
    match color {
        Color::White => Style::new().fg(fg).bg(Paint::White),
        Color::Black => Style::new().fg(fg).bg(Paint::Black),
    }
}

/// A letter colour for each piece with a visible dot, unlike those of its neighbours of
/// the same side where four colours allow. A piece keeps the colour its slot prefers
/// unless a neighbour has it, so colours seldom change from turn to turn.
fn tints(position: &Position) -> HashMap<PieceId, usize> {
    let top = |cell: Cell| position.top(cell).map(|dot| dot.piece);
    let mut tints = HashMap::new();
    for (piece, placed) in position.pieces() {
        let taken: Vec<usize> = placed
            .placement
            .cells()
            .into_iter()
            .filter(|&cell| top(cell) == Some(piece))
            .flat_map(Cell::neighbours)
            .filter_map(top)
            .filter(|other| other.color() == piece.color())
            .filter_map(|other| tints.get(&other).copied())
            .collect();
        let preferred = usize::from(piece.slot()) % TINTS[0].len();
        let tint = std::iter::once(preferred)
            .chain(0..TINTS[0].len())
            .find(|t| !taken.contains(t))
            .unwrap_or(preferred);
        tints.insert(piece, tint);
    }
    tints
}

/// The cells a turn's piece stands on once played.
pub fn turn_cells(turn: Turn) -> Vec<Cell> {
    match turn {
        Turn::Drop { punct, minors }
        | Turn::Move {
            to: punct, minors, ..
        } => vec![punct, minors[0], minors[1]],
        Turn::Pass => Vec::new(),
    }
}

/// Draws the coordinates and, once known, the position with `marks`.
pub fn draw(
    geometry: &Geometry,
    position: Option<&Position>,
    marks: &Marks,
    area: Rect,
    buf: &mut Buffer,
) {
    let put = |buf: &mut Buffer, (x, y): (u16, u16), text: &str, style: Style| {
        let (x, y) = (area.x + x, area.y + y);
        if x + text.chars().count() as u16 <= area.right() && y < area.bottom() {
            buf.set_string(x, y, text, style);
        }
    };
    for (x, y, text) in geometry.labels() {
        put(buf, (x, y), text, Style::new().fg(Paint::DarkGray));
    }
    let Some(position) = position else { return };
    let tints = tints(position);
    let style_of =
        |piece: PieceId| side_style(piece.color(), tints.get(&piece).copied().unwrap_or(0));
    let last = marks.last.map(turn_cells).unwrap_or_default();
    let origin = match marks.last {
        Some(Turn::Move { from, .. }) if !last.contains(&from) => Some(from),
        _ => None,
    };
    let preview = marks.preview.map(turn_cells).unwrap_or_default();
    for cell in Cell::all() {
        let mut style = match position.top(cell) {
            None if cell.is_central() => Style::new().fg(Paint::Yellow),
            None => Style::new().fg(Paint::DarkGray),
            Some(dot) => {
                let mut style = style_of(dot.piece);
                if dot.is_punct {
                    style = style.add_modifier(Modifier::BOLD);
                }
                if position.bridge_gap(dot.piece) == Some(cell) {
                    style = style.add_modifier(Modifier::UNDERLINED);
                }
                style
            }
        };
        if last.contains(&cell) {
            style = style.patch(LAST);
        } else if origin == Some(cell) {
            style = style.patch(ORIGIN);
        }
        if marks.targets.contains(&cell) {
            style = style.bg(Paint::Green);
        }
        if preview.contains(&cell) {
            style = style.bg(Paint::Magenta);
        }
        if marks.cursor == Some(cell) {
            style = style.add_modifier(Modifier::REVERSED);
        }
        let symbol: String = cell_symbol(position, cell).iter().collect();
        put(buf, geometry.origin(cell), &symbol, style);
        // Each link once, from its cell of lower index.
        for next in cell.neighbours().filter(|n| n.index() > cell.index()) {
            let (Some(a), Some(b)) = (position.top(cell), position.top(next)) else {
                continue;
            };
            if a.piece != b.piece {
                continue;
            }
            if let Some((x, y, glyph)) = geometry.link(cell, next) {
                let style = if last.contains(&cell) {
                    LAST
                } else {
                    style_of(a.piece)
                };
                put(buf, (x, y), &glyph.to_string(), style);
            }
        }
    }
}

/// What the marks on `geometry` mean, each entry a sample as drawn and its meaning.
pub fn legend(geometry: &Geometry) -> Vec<Vec<Span<'static>>> {
    let [white, black] = Color::ALL.map(|color| side_style(color, 0));
    let bold = Modifier::BOLD;
    let mut entries = vec![
        vec![
            Span::styled("W", white.add_modifier(bold)),
            Span::raw(" "),
            Span::styled("B", black.add_modifier(bold)),
            Span::raw(" PÜNCT"),
        ],
        vec![
            Span::styled("w", white),
            Span::raw(" "),
            Span::styled("b", black),
            Span::raw(" minor dot"),
        ],
        vec![Span::raw("2-9 level")],
        vec![
            Span::styled("+", Style::new().fg(Paint::Yellow)),
            Span::raw(" centre"),
        ],
        vec![Span::styled("  ", LAST), Span::raw(" last turn")],
        vec![Span::styled("  ", ORIGIN), Span::raw(" from")],
        vec![
            Span::styled("w2", white.add_modifier(Modifier::UNDERLINED)),
            Span::raw(" bridge"),
        ],
    ];
    if geometry.links {
        entries.push(vec![Span::raw("│╱╲ one piece")]);
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The board's characters as text lines.
    fn text(geometry: &Geometry, position: &Position, marks: &Marks) -> Vec<String> {
        let area = Rect::new(0, 0, geometry.width, geometry.height);
        let mut buf = Buffer::empty(area);
        draw(geometry, Some(position), marks, area, &mut buf);
        (0..area.height)
            .map(|y| {
                (0..area.width)
                    .map(|x| buf[(x, y)].symbol())
                    .collect::<String>()
                    .trim_end()
                    .to_owned()
            })
            .collect()
    }

    fn position(record: &str) -> Position {
        punct_rules::Game::from_record(punct_rules::Variant::Standard, record)
            .expect("legal")
            .position()
            .clone()
    }

    #[test]
    fn the_compact_board_has_a_line_per_row_and_every_cell_once() {
        let geometry = &*COMPACT;
        assert_eq!(geometry.height, 19);
        assert!(!geometry.links);
        let mut seen = std::collections::HashSet::new();
        for cell in Cell::all() {
            let (x, y) = geometry.origin(cell);
            assert_eq!(y, 18 - u16::from(cell.row()), "{cell}");
            assert!(x + 2 <= geometry.width);
            assert!(
                seen.insert((x, y)) && seen.insert((x + 1, y)),
                "{cell} overlaps"
            );
            // Neighbours in a row are two apart; the row above is one to the left.
            if let Some(up) = cell.offset(0, 1) {
                assert_eq!(geometry.origin(up), (x - 1, y - 1));
            }
        }
        let lines = text(geometry, &position(""), &Marks::default());
        assert_eq!(lines[0].trim(), "I J K L M N O P Q");
        assert_eq!(lines[18].trim(), "A B C D E F G H I");
        assert!(lines[1].trim_start().starts_with("17 ."), "{}", lines[1]);
        assert!(lines[9].trim_start().starts_with("9 ."), "{}", lines[9]);
        assert!(lines[17].trim_start().starts_with("1 ."), "{}", lines[17]);
    }

    #[test]
    fn a_piece_s_dots_are_joined_where_the_drawing_leaves_room() {
        // White's triangle C4, C5, D5 and Black's straight piece J14, J15, K15.
        let position = position("C4:C5,D5\nJ14:J15,K15\n");
        let lines = text(&FULL, &position, &Marks::default());
        let at = |cell: &str| FULL.origin(cell.parse().expect("cell"));
        let glyph = |(x, y): (u16, u16)| lines[usize::from(y)].chars().nth(usize::from(x));
        let (c4, c5, d5) = (at("C4"), at("C5"), at("D5"));
        assert_eq!(glyph((c4.0, c4.1 - 1)), Some('│'), "C4 to C5");
        assert_eq!(glyph((c4.0 + 2, c4.1 - 1)), Some('╲'), "C5 to D5");
        assert_eq!(glyph((c4.0 + 2, c4.1)), Some('╱'), "C4 to D5");
        assert_eq!(d5, (c5.0 + 3, c5.1 + 1), "D5 is right of C5, a line down");
        // Black's is joined alike; pieces are not joined to each other or to empty cells.
        let links: usize = lines
            .iter()
            .map(|l| l.matches(['│', '╱', '╲']).count())
            .sum();
        assert_eq!(links, 3 + 3);
    }

    #[test]
    fn neighbouring_pieces_of_a_side_differ_in_colour() {
        // A crowded board: the same game on every run, by a fixed stride through the
        // legal turns.
        let mut game = punct_rules::Game::new(punct_rules::Variant::Standard);
        while game.turns().len() < 30 && !game.is_over() {
            let legal = game.legal_turns();
            game.play(legal[(game.turns().len() * 7919) % legal.len()])
                .expect("legal");
        }
        let position = game.position();
        let tints = tints(position);
        let mut pairs = 0;
        for cell in Cell::all() {
            let Some(a) = position.top(cell) else {
                continue;
            };
            assert!(tints.contains_key(&a.piece), "a visible piece has a colour");
            for b in cell.neighbours().filter_map(|n| position.top(n)) {
                if b.piece != a.piece && b.piece.color() == a.piece.color() {
                    pairs += 1;
                    assert_ne!(tints[&a.piece], tints[&b.piece], "{cell}");
                }
            }
        }
        assert!(pairs > 0, "some pieces of a side touch");
    }
}
