//! A set of cells as a 256-bit mask.

use std::fmt;

use crate::{CELL_COUNT, Cell};

/// A set of board cells, one bit per cell index.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CellSet([u64; 4]);

impl CellSet {
    /// The empty set.
    pub const EMPTY: CellSet = CellSet([0; 4]);

    /// Every cell of the board.
    pub const fn full() -> CellSet {
        let mut words = [0; 4];
        let mut i = 0;
        while i < CELL_COUNT {
            words[i / 64] |= 1 << (i % 64);
            i += 1;
        }
        CellSet(words)
    }

    /// This set with `cell` added.
    pub const fn with(self, cell: Cell) -> CellSet {
        let mut words = self.0;
        words[cell.index() / 64] |= 1 << (cell.index() % 64);
        CellSet(words)
    }

    /// Adds `cell`.
    pub fn insert(&mut self, cell: Cell) {
        *self = self.with(cell);
    }

    /// Removes `cell`.
    pub fn remove(&mut self, cell: Cell) {
        self.0[cell.index() / 64] &= !(1 << (cell.index() % 64));
    }

    /// Whether `cell` is in the set.
    pub const fn contains(self, cell: Cell) -> bool {
        self.has_index(cell.index() as u8)
    }

    /// Whether the cell with index `index` is in the set; `false` for indices off the
    /// board, so that the tables' `u8::MAX` for "no cell" needs no test of its own.
    pub(crate) const fn has_index(self, index: u8) -> bool {
        self.0[index as usize / 64] & (1 << (index % 64)) != 0
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0[0] | self.0[1] | self.0[2] | self.0[3] == 0
    }

    /// Number of cells in the set.
    pub const fn len(self) -> usize {
        (self.0[0].count_ones()
            + self.0[1].count_ones()
            + self.0[2].count_ones()
            + self.0[3].count_ones()) as usize
    }

    /// Cells in both sets.
    pub fn intersection(self, other: CellSet) -> CellSet {
        CellSet(std::array::from_fn(|i| self.0[i] & other.0[i]))
    }

    /// Cells in either set.
    pub fn union(self, other: CellSet) -> CellSet {
        CellSet(std::array::from_fn(|i| self.0[i] | other.0[i]))
    }

    /// Cells in `self` but not in `other`.
    pub fn difference(self, other: CellSet) -> CellSet {
        CellSet(std::array::from_fn(|i| self.0[i] & !other.0[i]))
    }

    /// Whether the two sets share a cell.
    pub fn intersects(self, other: CellSet) -> bool {
        !self.intersection(other).is_empty()
    }

    /// The cells of `within` connected to `seeds` through neighbours inside `within`
    /// (seeds outside `within` are ignored).
    pub fn flood(seeds: CellSet, within: CellSet) -> CellSet {
        let mut reached = seeds.intersection(within);
        let mut frontier = reached;
        while !frontier.is_empty() {
            let around = frontier
                .iter()
                .fold(CellSet::EMPTY, |set, cell| set.union(cell.neighbour_set()));
            frontier = around.intersection(within).difference(reached);
            reached = reached.union(frontier);
        }
        reached
    }

    /// The cells, in canonical order.
    pub fn iter(self) -> Iter {
        Iter {
            words: self.0,
            word: 0,
        }
    }
}

/// Iterator over the cells of a [`CellSet`], in canonical order.
#[derive(Clone, Debug)]
pub struct Iter {
    /// The bits not yet yielded.
    words: [u64; 4],
    /// Index of the word being emptied.
    word: usize,
}

impl Iterator for Iter {
    type Item = Cell;

    fn next(&mut self) -> Option<Cell> {
        while self.word < 4 {
            let w = self.words[self.word];
            if w != 0 {
                self.words[self.word] = w & (w - 1);
                return Cell::from_index(self.word * 64 + w.trailing_zeros() as usize);
            }
            self.word += 1;
        }
        None
    }
}

impl IntoIterator for CellSet {
    type Item = Cell;
    type IntoIter = Iter;

    fn into_iter(self) -> Iter {
        self.iter()
    }
}

impl FromIterator<Cell> for CellSet {
    fn from_iter<I: IntoIterator<Item = Cell>>(iter: I) -> CellSet {
        let mut set = CellSet::EMPTY;
        for cell in iter {
            set.insert(cell);
        }
        set
    }
}

impl fmt::Debug for CellSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

const _: () = assert!(CELL_COUNT <= 256);
