//! The board as a bitboard laid out for shifting: 17 rows of 18 bits, a bit per column
//! and one of padding, so that a step in any of the six directions is a shift by 1, 18
//! or 19 and a step off the west or east edge lands on padding, never on the next row.
//! The rules crate's [`CellSet`] numbers cells column by column with no gaps, which is
//! compact but cannot be shifted; the evaluation grows regions a step at a time in every
//! direction at once, and does it here.

use std::sync::LazyLock;

use punct_rules::{CELL_COUNT, Cell, CellSet, Side};

/// Bits per row: the 17 columns and a padding bit.
const STRIDE: usize = 18;

/// Bit positions, padding included.
const SPAN: usize = STRIDE * 17;

/// Words of a bitboard.
const WORDS: usize = SPAN.div_ceil(64);

/// Marks a bit position that is not a cell in [`CELL_AT`].
const NOT_A_CELL: u8 = u8::MAX;

/// A set of cells, as bits in the shifting layout.
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct Bits([u64; WORDS]);

/// Compared word by word, without the call to `memcmp` a derived comparison of an array
/// makes: the layers compare their sets at every step.
impl PartialEq for Bits {
    fn eq(&self, other: &Bits) -> bool {
        self.0
            .iter()
            .zip(other.0)
            .fold(0, |differ, (&a, b)| differ | (a ^ b))
            == 0
    }
}

impl Eq for Bits {}

/// The bit position of each cell, by cell index.
const BIT_OF: [u16; CELL_COUNT] = {
    let mut table = [0u16; CELL_COUNT];
    let mut i = 0;
    while i < CELL_COUNT {
        let cell = match Cell::from_index(i) {
            Some(cell) => cell,
            None => panic!("every index below CELL_COUNT is a cell"),
        };
        table[i] = ((cell.row() as usize - 1) * STRIDE + cell.col() as usize - 1) as u16;
        i += 1;
    }
    table
};

/// The cell index at each bit position, [`NOT_A_CELL`] for padding and removed corners.
const CELL_AT: [u8; WORDS * 64] = {
    let mut table = [NOT_A_CELL; WORDS * 64];
    let mut i = 0;
    while i < CELL_COUNT {
        table[BIT_OF[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// Every cell of the board.
const BOARD: Bits = {
    let mut board = Bits::EMPTY;
    let mut i = 0;
    while i < CELL_COUNT {
        board = board.with_index(i);
        i += 1;
    }
    board
};

/// Each pair of opposite sides, as [`Side::PAIRS`] lists them.
pub(crate) static PAIRS: LazyLock<[(Bits, Bits); 3]> =
    LazyLock::new(|| Side::PAIRS.map(|(a, b)| (Bits::from(a.cells()), Bits::from(b.cells()))));

impl Bits {
    /// No cell.
    pub(crate) const EMPTY: Bits = Bits([0; WORDS]);

    /// Every cell.
    pub(crate) const fn board() -> Bits {
        BOARD
    }

    /// This set with the cell of index `index`.
    const fn with_index(self, index: usize) -> Bits {
        let bit = BIT_OF[index] as usize;
        let mut words = self.0;
        words[bit / 64] |= 1 << (bit % 64);
        Bits(words)
    }

    pub(crate) fn and(self, other: Bits) -> Bits {
        Bits(std::array::from_fn(|i| self.0[i] & other.0[i]))
    }

    pub(crate) fn or(self, other: Bits) -> Bits {
        Bits(std::array::from_fn(|i| self.0[i] | other.0[i]))
    }

    pub(crate) fn and_not(self, other: Bits) -> Bits {
        Bits(std::array::from_fn(|i| self.0[i] & !other.0[i]))
    }

    pub(crate) fn intersects(self, other: Bits) -> bool {
        self.0
            .iter()
            .zip(other.0)
            .fold(0, |common, (&a, b)| common | (a & b))
            != 0
    }

    /// Every bit moved `n` places up (`0 < n < 64`).
    fn up(self, n: u32) -> Bits {
        let w = self.0;
        Bits(std::array::from_fn(|i| {
            let carry = if i > 0 { w[i - 1] >> (64 - n) } else { 0 };
            (w[i] << n) | carry
        }))
    }

    /// Every bit moved `n` places down (`0 < n < 64`).
    fn down(self, n: u32) -> Bits {
        let w = self.0;
        Bits(std::array::from_fn(|i| {
            let carry = if i + 1 < WORDS {
                w[i + 1] << (64 - n)
            } else {
                0
            };
            (w[i] >> n) | carry
        }))
    }

    /// These cells and all their neighbours. The six steps are ±1, ±18 and ±19; a step
    /// of 19 is one of 18 after one of 1, so four shifts do.
    pub(crate) fn grow(self) -> Bits {
        let east = self.or(self.up(1));
        let west = self.or(self.down(1));
        east.or(west)
            .or(east.up(STRIDE as u32))
            .or(west.down(STRIDE as u32))
            .and(BOARD)
    }

    /// The cells of `within` connected to these through neighbours inside `within`,
    /// and these; then that region grown by a step, which the flood has computed anyway.
    pub(crate) fn flood(self, within: Bits) -> (Bits, Bits) {
        let mut reached = self;
        loop {
            let grown = reached.grow();
            let next = grown.and(within).or(reached);
            if next == reached {
                return (reached, grown);
            }
            reached = next;
        }
    }
}

impl FromIterator<Cell> for Bits {
    fn from_iter<I: IntoIterator<Item = Cell>>(cells: I) -> Bits {
        cells
            .into_iter()
            .fold(Bits::EMPTY, |set, cell| set.with_index(cell.index()))
    }
}

impl From<CellSet> for Bits {
    fn from(set: CellSet) -> Bits {
        set.into_iter().collect()
    }
}

impl From<Bits> for CellSet {
    fn from(bits: Bits) -> CellSet {
        let mut set = CellSet::EMPTY;
        for (i, &word) in bits.0.iter().enumerate() {
            let mut w = word;
            while w != 0 {
                let index = CELL_AT[i * 64 + w.trailing_zeros() as usize];
                w &= w - 1;
                if let Some(cell) = Cell::from_index(index as usize) {
                    set.insert(cell);
                }
            }
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cell_keeps_its_place_and_grows_into_its_neighbours() {
        assert_eq!(CellSet::from(Bits::board()), CellSet::full());
        for cell in Cell::all() {
            let one = Bits::from(CellSet::EMPTY.with(cell));
            assert_eq!(CellSet::from(one), CellSet::EMPTY.with(cell));
            let mut around = CellSet::EMPTY.with(cell);
            for n in cell.neighbours() {
                around.insert(n);
            }
            assert_eq!(CellSet::from(one.grow()), around, "around {cell}");
        }
    }

    #[test]
    fn a_flood_stays_inside_and_follows_neighbours() {
        let within = CellSet::from_iter(["A2", "B2", "C2", "E2", "B3"].map(|c| c.parse().unwrap()));
        let seed = Bits::from(CellSet::EMPTY.with("A2".parse().unwrap()));
        let (reached, grown) = seed.flood(Bits::from(within));
        let expected = CellSet::from_iter(["A2", "B2", "C2", "B3"].map(|c| c.parse().unwrap()));
        assert_eq!(CellSet::from(reached), expected);
        assert_eq!(grown, reached.grow());
    }
}
