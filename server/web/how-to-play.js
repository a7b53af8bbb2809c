// The how-to-play page: the rules in short, each illustrated by a board drawn with the
// game page's own drawing code (board.js), from positions made up here.

import { mountAccount } from './account.js';
import { drawBoard, kindIcon, KINDS, parseCell, CELLS } from './board.js';
import { el } from './ui.js';

/** Stacks (as a snapshot's `board`) for pieces given as `[color, kind, level, punct,
 * minor, minor]`; each piece gets its own number. */
function board(...pieces) {
  const stacks = new Map();
  pieces.forEach(([color, kind, level, ...cells], piece) => {
    cells.forEach((cell, i) => {
      const dots = stacks.get(cell) ?? [];
      dots.push({ color, kind, piece, level, punct: i === 0 });
      stacks.set(cell, dots);
    });
  });
  return [...stacks].map(([cell, dots]) => ({ cell, dots: dots.sort((a, b) => b.level - a.level) }));
}

/** From A5 rightwards to Q14, keeping to one screen row: a chain across the board, from
 * the west side to the east (the first pair of `SIDES`), drawn as won. */
function acrossTheBoard() {
  const cells = [];
  for (let c = 1, r = 5; c <= 17; c++) {
    cells.push(`${'ABCDEFGHIJKLMNOPQ'[c - 1]}${r}`);
    if (c % 2) r++;
  }
  cells.push('Q14');
  const pieces = [];
  for (let i = 0; i < cells.length; i += 3) pieces.push(['white', 'angular-corner', 1, cells[i + 1], cells[i], cells[i + 2]]);
  return { board: board(...pieces), chain: { pair: 0, cells } };
}

/** The cells on the three lines through `cell`: where a PÜNCT there may travel. */
function lines(cell) {
  const { c, r } = parseCell(cell);
  return CELLS.filter((name) => {
    const p = parseCell(name);
    return name !== cell && (p.c === c || p.r === r || p.r - p.c === r - c);
  });
}

const pictures = {
  goal: acrossTheBoard(),
  sides: { board: [] },
  drop: { board: board(['white', 'triangle', 1, 'C4', 'C5', 'D5']), last: { from: null, to: ['C4', 'C5', 'D5'] } },
  move: {
    board: board(['white', 'straight-middle', 1, 'H4', 'G4', 'I4'], ['black', 'triangle', 1, 'K9', 'K10', 'L10']),
    source: ['H4', 'G4', 'I4'],
    targets: lines('H4'),
    ghost: { punct: 'H12', minors: ['G12', 'I12'], color: 'white' },
  },
  jump: {
    board: board(
      ['white', 'triangle', 1, 'E4', 'E5', 'F5'],
      ['black', 'triangle', 1, 'F6', 'G6', 'G7'],
      ['white', 'straight-end', 2, 'E5', 'F6', 'G7'],
    ),
    last: { from: 'C3', to: ['E5', 'F6', 'G7'] },
  },
  bridge: {
    board: board(
      ['white', 'triangle', 1, 'C8', 'B8', 'B7'],
      ['black', 'triangle', 1, 'C6', 'D6', 'D7'],
      ['white', 'straight-end', 2, 'C8', 'C7', 'C6'],
    ),
  },
};

for (const svg of document.querySelectorAll('svg[data-board]')) drawBoard(svg, pictures[svg.dataset.board]);
document.getElementById('kind-list').replaceChildren(
  ...Object.entries(KINDS).map(([kind, name]) => el('li', {}, kindIcon(kind, 'white'), ' ', name)),
);
mountAccount(document.getElementById('account'));
