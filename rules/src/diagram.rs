//! A text drawing of a position: the board as a hexagon with its coordinates, both
//! reserves, and whose turn it is or how the game ended.
//!
//! The board is drawn as the rules describe it: columns `A`–`Q` from left to right, each a
//! vertical line of cells, rows rising upwards. Cell (c, r) sits at x = c, y = r − c/2, so
//! a column is three characters wide and each text line is half a row: neighbouring columns
//! are offset by one line. Rows therefore slant down to the right; each row's number is
//! written just left of its first cell and just right of its last one, and each column's
//! letter below its lowest cell and above its highest.
//!
//! Every cell takes two characters:
//!
//! | cell | drawn |
//! |---|---|
//! | empty | `.` |
//! | empty, in the central hexagon | `+` |
//! | topmost dot a PÜNCT of White / Black | `W` / `B` |
//! | topmost dot a minor dot of White / Black | `w` / `b` |
//!
//! followed by the level of the topmost dot when it is above 1 (`2`–`9`, `*` from 10 up),
//! so the plain drawing reads without colour. [`DiagramStyle::Ansi`] adds terminal colours
//! on top of the same characters.

use std::fmt;

use crate::{Cell, Color, Game, Kind, Outcome, Position};

/// How a [`Diagram`] is rendered.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum DiagramStyle {
    /// Plain text, readable on any output.
    #[default]
    Plain,
    /// The same text with ANSI colour escapes, for a terminal.
    Ansi,
}

/// A drawing of a position, shown with [`Display`](fmt::Display): the board, the legend,
/// both reserves counted by kind, and the side to move or the result.
///
/// ```
/// use punct_rules::{Diagram, DiagramStyle, Game, Variant};
/// let game = Game::from_record(Variant::Standard, "C4:C5,D5\n")?;
/// let text = Diagram::of_game(&game, DiagramStyle::Plain).to_string();
/// assert!(text.contains("standard game: black to move"));
/// # Ok::<_, punct_rules::RecordError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Diagram<'a> {
    /// What is drawn.
    position: &'a Position,
    /// The result, replacing the side to move in the status line once the game is over.
    outcome: Option<Outcome>,
    /// Plain text or colours.
    style: DiagramStyle,
}

impl<'a> Diagram<'a> {
    /// A drawing of `position`, with the side to move in the status line.
    pub fn new(position: &'a Position, style: DiagramStyle) -> Diagram<'a> {
        Diagram {
            position,
            outcome: None,
            style,
        }
    }

    /// A drawing of the current position of `game`, with its result if it is over.
    pub fn of_game(game: &'a Game, style: DiagramStyle) -> Diagram<'a> {
        Diagram {
            position: game.position(),
            outcome: game.outcome(),
            style,
        }
    }
}

/// What the characters of the board mean, printed under it.
const LEGEND: &str = "W B: PÜNCT of White, Black on top   w b: minor dot on top\n\
                      2-9: level of the top dot, * from 10   .: empty   +: empty centre";

/// Characters per board column.
const COL_WIDTH: usize = 3;

/// Characters a cell or a label takes.
const SLOT_WIDTH: usize = 2;

/// What colour a character is given in [`DiagramStyle::Ansi`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Paint {
    /// Labels and padding.
    None,
    /// An empty cell.
    Empty,
    /// An empty cell of the central hexagon.
    Centre,
    /// A visible dot of a player; `true` for a PÜNCT.
    Dot(Color, bool),
}

impl Paint {
    /// The escape sequence that starts this paint.
    fn escape(self) -> &'static str {
        match self {
            Paint::None => "\x1b[0m",
            Paint::Empty => "\x1b[2m",
            Paint::Centre => "\x1b[33m",
            // Dots get a background so both colours show on light and dark terminals.
            Paint::Dot(Color::White, false) => "\x1b[30;107m",
            Paint::Dot(Color::White, true) => "\x1b[1;30;107m",
            Paint::Dot(Color::Black, false) => "\x1b[97;40m",
            Paint::Dot(Color::Black, true) => "\x1b[1;97;40m",
        }
    }
}

/// Something written at a board position: a cell or a coordinate label.
#[derive(Clone)]
struct Item {
    /// Board column, 0 and 18 being the margins.
    col: u8,
    /// Twice the height y = r − c/2: the text line, counted upwards.
    v: i32,
    /// Exactly [`SLOT_WIDTH`] characters.
    text: [char; SLOT_WIDTH],
    /// Colour in the ANSI style.
    paint: Paint,
}

impl Item {
    /// A label in the slot of column `col` on line `v`; `right` aligns it to the right,
    /// next to the cell after it.
    fn label(col: u8, v: i32, text: &str, right: bool) -> Item {
        let text = if right {
            format!("{text:>SLOT_WIDTH$}")
        } else {
            format!("{text:<SLOT_WIDTH$}")
        };
        let mut chars = text.chars();
        Item {
            col,
            v,
            text: [(); SLOT_WIDTH].map(|()| chars.next().unwrap_or(' ')),
            paint: Paint::None,
        }
    }
}

/// Twice the height of (col, row) in the drawing: the text line, counted upwards.
fn line_of(col: u8, row: u8) -> i32 {
    2 * i32::from(row) - i32::from(col)
}

/// The two characters a cell is drawn with: `.` or `+` when empty, else the letter of its
/// topmost dot (`W`/`B` for a PÜNCT, `w`/`b` for a minor dot) and that dot's level when
/// above 1 (`2`–`9`, `*` from 10). Shared with every client that draws the board.
pub fn cell_symbol(position: &Position, cell: Cell) -> [char; 2] {
    cell_item(position, cell).text
}

/// How a cell is drawn.
fn cell_item(position: &Position, cell: Cell) -> Item {
    let (text, paint) = match position.top(cell) {
        None if cell.is_central() => (['+', ' '], Paint::Centre),
        None => (['.', ' '], Paint::Empty),
        Some(dot) => {
            let color = dot.piece.color();
            let letter = match (color, dot.is_punct) {
                (Color::White, true) => 'W',
                (Color::White, false) => 'w',
                (Color::Black, true) => 'B',
                (Color::Black, false) => 'b',
            };
            let level = match dot.level {
                0 | 1 => ' ',
                l @ 2..=9 => char::from(b'0' + l),
                _ => '*',
            };
            ([letter, level], Paint::Dot(color, dot.is_punct))
        }
    };
    Item {
        col: cell.col(),
        v: line_of(cell.col(), cell.row()),
        text,
        paint,
    }
}

/// The coordinate labels around the board.
fn label_items() -> Vec<Item> {
    let mut items = Vec::new();
    for col in 1..=17 {
        let rows = Cell::all().filter(|c| c.col() == col).map(Cell::row);
        let (low, high) = (rows.clone().min(), rows.max());
        let (Some(low), Some(high)) = (low, high) else {
            continue;
        };
        let letter = char::from(b'A' + col - 1).to_string();
        items.push(Item::label(col, line_of(col, low - 1), &letter, false));
        items.push(Item::label(col, line_of(col, high + 1), &letter, false));
    }
    for row in 1..=17 {
        let cols = Cell::all().filter(|c| c.row() == row).map(Cell::col);
        let (first, last) = (cols.clone().min(), cols.max());
        let (Some(first), Some(last)) = (first, last) else {
            continue;
        };
        // On the line of the row's end cell, in the next column's slot: that column has
        // no cell on this line, since neighbouring columns sit half a row apart.
        let number = row.to_string();
        items.push(Item::label(first - 1, line_of(first, row), &number, true));
        items.push(Item::label(last + 1, line_of(last, row), &number, false));
    }
    items
}

/// Where the board drawing puts each cell and coordinate label, for clients that draw the
/// board themselves (a terminal UI placing cells on screen). [`Diagram`] draws with it.
///
/// ```
/// use punct_rules::{BoardLayout, Cell};
/// let layout = BoardLayout::new();
/// let (x, line) = layout.cell_origin("I9".parse::<Cell>()?);
/// assert!(x < layout.width() && line < layout.height());
/// # Ok::<_, punct_rules::ParseCellError>(())
/// ```
#[derive(Clone)]
pub struct BoardLayout {
    /// The highest text line, as twice the height; line 0 of the drawing.
    top: i32,
    /// Characters per line.
    width: usize,
    /// Text lines.
    height: usize,
    /// The coordinate labels.
    labels: Vec<Item>,
}

impl Default for BoardLayout {
    fn default() -> BoardLayout {
        BoardLayout::new()
    }
}

impl BoardLayout {
    /// The layout of the board of 211 cells.
    pub fn new() -> BoardLayout {
        let labels = label_items();
        let lines = labels
            .iter()
            .map(|i| i.v)
            .chain(Cell::all().map(|c| line_of(c.col(), c.row())));
        let top = lines.clone().max().unwrap_or(0);
        let bottom = lines.min().unwrap_or(0);
        let width = labels
            .iter()
            .map(|i| i.col)
            .chain(Cell::all().map(Cell::col))
            .map(|col| usize::from(col) * COL_WIDTH + SLOT_WIDTH)
            .max()
            .unwrap_or(0);
        BoardLayout {
            top,
            width,
            height: (top - bottom + 1) as usize,
            labels,
        }
    }

    /// Characters per line of the drawing.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Text lines of the drawing.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Where `cell`'s two characters start: (character column, text line from the top).
    pub fn cell_origin(&self, cell: Cell) -> (usize, usize) {
        self.origin(cell.col(), line_of(cell.col(), cell.row()))
    }

    /// Every coordinate label: (character column, text line, two characters).
    pub fn labels(&self) -> impl Iterator<Item = (usize, usize, [char; 2])> + '_ {
        self.labels.iter().map(|item| {
            let (x, line) = self.origin(item.col, item.v);
            (x, line, item.text)
        })
    }

    fn origin(&self, col: u8, v: i32) -> (usize, usize) {
        (usize::from(col) * COL_WIDTH, (self.top - v) as usize)
    }
}

/// Writes the text of a drawing, switching colours only when they change.
struct Painter<'f, 'a> {
    /// Where the text goes.
    f: &'f mut fmt::Formatter<'a>,
    /// Whether to write colour escapes at all.
    style: DiagramStyle,
    /// The paint in effect, to skip repeated escapes.
    current: Paint,
}

impl Painter<'_, '_> {
    fn write(&mut self, paint: Paint, text: &str) -> fmt::Result {
        if self.style == DiagramStyle::Ansi && paint != self.current {
            self.f.write_str(paint.escape())?;
            self.current = paint;
        }
        self.f.write_str(text)
    }
}

impl Diagram<'_> {
    /// Draws the board with its coordinates.
    fn board(&self, painter: &mut Painter<'_, '_>) -> fmt::Result {
        let layout = BoardLayout::new();
        let mut canvas = vec![vec![(' ', Paint::None); layout.width()]; layout.height()];
        let cells = Cell::all().map(|cell| cell_item(self.position, cell));
        for item in cells.chain(label_items()) {
            let (x, line) = layout.origin(item.col, item.v);
            let line = &mut canvas[line];
            for (i, &ch) in item.text.iter().enumerate() {
                // Only dots are painted as a block; elsewhere padding stays unpainted,
                // which saves escapes.
                let paint = match item.paint {
                    Paint::Dot(..) => item.paint,
                    _ if ch == ' ' => Paint::None,
                    _ => item.paint,
                };
                line[x + i] = (ch, paint);
            }
        }
        for line in canvas {
            // Trailing blanks are dropped, but not the coloured padding of a dot.
            let end = line
                .iter()
                .rposition(|&(ch, paint)| ch != ' ' || matches!(paint, Paint::Dot(..)))
                .map_or(0, |i| i + 1);
            for &(ch, paint) in &line[..end] {
                painter.write(paint, ch.encode_utf8(&mut [0; 4]))?;
            }
            painter.write(Paint::None, "\n")?;
        }
        Ok(())
    }

    /// Writes the reserves of both players, one line per kind.
    fn reserves(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [white, black] = Color::ALL.map(|c| self.position.reserve(c));
        let width = Kind::ALL
            .iter()
            .map(|k| k.name().chars().count())
            .max()
            .unwrap_or(0);
        writeln!(f, "{:<width$}  white  black", "reserve")?;
        for kind in Kind::ALL {
            let (w, b) = (white.count(kind), black.count(kind));
            writeln!(f, "{:<width$}  {w:>5}  {b:>5}", kind.name())?;
        }
        let (w, b) = (white.total(), black.total());
        writeln!(f, "{:<width$}  {w:>5}  {b:>5}", "in all")
    }
}

impl fmt::Display for Diagram<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.board(&mut Painter {
            f,
            style: self.style,
            current: Paint::None,
        })?;
        writeln!(f)?;
        writeln!(f, "{LEGEND}")?;
        writeln!(f)?;
        self.reserves(f)?;
        writeln!(f)?;
        let variant = self.position.variant();
        match self.outcome {
            Some(outcome) => writeln!(f, "{variant} game: {outcome}"),
            None => writeln!(f, "{variant} game: {} to move", self.position.to_move()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DrawReason, Variant, WinReason};

    /// The board part of a plain drawing, one string per line.
    fn board_lines(game: &Game) -> Vec<String> {
        Diagram::of_game(game, DiagramStyle::Plain)
            .to_string()
            .lines()
            .take_while(|line| !line.is_empty())
            .map(str::to_owned)
            .collect()
    }

    fn game(record: &str) -> Game {
        Game::from_record(Variant::Standard, record).expect("test records are legal")
    }

    #[test]
    fn empty_board_is_a_hexagon_with_coordinates_on_every_edge() {
        let lines = board_lines(&Game::new(Variant::Standard));
        assert_eq!(lines.len(), 35);
        assert_eq!(lines[0], "                        H     J");
        assert_eq!(lines[1], "                     G     I     K");
        assert_eq!(lines[2], "                  F  16 .  17 .     L");
        assert_eq!(
            lines[8],
            "   10 .     .     .     .     .     .     .     .  17"
        );
        assert_eq!(
            lines[9],
            "   A     .     .     .     .     .     .     .     Q"
        );
        assert_eq!(
            lines[11],
            " 8 .     .     .     .     .     .     .     .     .  16"
        );
        assert_eq!(lines[32], "                  F     .  1  .  2  L");
        assert_eq!(lines[34], "                        H     J");
        let cells: usize = lines.iter().map(|l| l.matches(['.', '+']).count()).sum();
        assert_eq!(cells, crate::CELL_COUNT);
    }

    #[test]
    fn empty_central_hexagon_is_drawn_with_plus_signs() {
        let lines = board_lines(&Game::new(Variant::Standard));
        let plus: usize = lines.iter().map(|l| l.matches('+').count()).sum();
        assert_eq!(plus, 19);
        // I11, the top of the central hexagon, is on the line of A7.
        assert_eq!(
            lines[13],
            " 7 .     .     .     .     +     .     .     .     .  15"
        );
        assert_eq!(
            lines[14],
            "      .     .     .     +     +     .     .     ."
        );
    }

    #[test]
    fn a_drop_shows_its_punct_upper_case_and_its_minor_dots_lower_case() {
        // White's PÜNCT on C4, minor dots on C5 and D5.
        let lines = board_lines(&game("C4:C5,D5\n"));
        // C4 shares its line with A3, C5 with A4; D5 is between them.
        assert_eq!(
            lines[19],
            " 4 .     w     .     +     +     +     .     .     .  12"
        );
        assert_eq!(
            lines[20],
            "      .     w     .     +     +     .     .     ."
        );
        assert_eq!(
            lines[21],
            " 3 .     W     .     .     +     .     .     .     .  11"
        );
        let black = board_lines(&game("C4:C5,D5\nJ14:J15,K15\n"));
        assert_eq!(
            black[8],
            "   10 .     .     .     .     B     .     .     .  17"
        );
    }

    #[test]
    fn a_piece_on_a_stack_shows_its_level() {
        // White's second triangle jumps onto the first.
        let lines = board_lines(&game(
            "C4:C5,D5\nJ14:J15,K15\nE5:E6,F6\nJ12:J13,K13\nE5-C5:C4,D5\n",
        ));
        assert_eq!(
            lines[19],
            " 4 .     W2    .     +     +     +     .     .     .  12"
        );
        assert_eq!(
            lines[20],
            "      .     w2    .     +     +     .     .     ."
        );
        assert_eq!(
            lines[21],
            " 3 .     w2    .     .     +     .     .     .     .  11"
        );
    }

    #[test]
    fn reserves_are_counted_by_kind() {
        let text = Diagram::of_game(&game("C4:C5,D5\n"), DiagramStyle::Plain).to_string();
        assert!(text.contains("\ntriangle                              5      6\n"));
        assert!(text.contains("\nstraight, end PÜNCT                   4      4\n"));
        assert!(text.contains("\nin all                               17     18\n"));
    }

    #[test]
    fn status_line_says_who_moves_or_how_the_game_ended() {
        let start = Game::new(Variant::Basic);
        let text = Diagram::of_game(&start, DiagramStyle::Plain).to_string();
        assert!(text.ends_with("\nbasic game: white to move\n"));
        let won = Diagram {
            outcome: Some(Outcome::Win {
                winner: Color::Black,
                reason: WinReason::Connection,
            }),
            ..Diagram::new(start.position(), DiagramStyle::Plain)
        };
        assert!(
            won.to_string()
                .ends_with("\nbasic game: winner black (connection)\n")
        );
        let drawn = Diagram {
            outcome: Some(Outcome::Draw {
                reason: DrawReason::Repetition,
            }),
            ..won
        };
        assert!(
            drawn
                .to_string()
                .ends_with("\nbasic game: draw (repetition)\n")
        );
    }

    #[test]
    fn ansi_style_only_adds_colour_escapes_to_the_plain_text() {
        let game = game("C4:C5,D5\nJ14:J15,K15\n");
        let plain = Diagram::of_game(&game, DiagramStyle::Plain).to_string();
        let ansi = Diagram::of_game(&game, DiagramStyle::Ansi).to_string();
        assert!(!plain.contains('\x1b'));
        assert!(ansi.contains("\x1b[1;30;107mW \x1b[0m"));
        assert!(ansi.contains("\x1b[1;97;40mB \x1b[0m"));
        let mut stripped = String::new();
        let mut rest = ansi.as_str();
        while let Some(start) = rest.find('\x1b') {
            stripped.push_str(&rest[..start]);
            let end = rest[start..].find('m').expect("escapes end in m");
            rest = &rest[start + end + 1..];
        }
        stripped.push_str(rest);
        assert_eq!(stripped, plain);
    }
}
