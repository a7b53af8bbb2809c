// Picking a turn on the board, as the game page and the practice board (tutorial,
// puzzles) both do it: a piece (a kind in the reserve, or one of one's own on the
// board), a lit cell for its PÜNCT, then clicks that turn it at its destination. The
// state is a `pick` object (`{pick, dest, options, option}`); only turns among the legal
// ones given can be picked.

import { isDrop, kindOf, parseTurn, piecesOf } from './board.js';

/** A pick with nothing picked. */
export function emptyPick() {
  return { pick: null, dest: null, options: [], option: 0 };
}

/** Forgets what `ui` had picked. */
export function clearPick(ui) {
  Object.assign(ui, emptyPick());
}

/** The legal turns (parsed) of the piece picked in `ui`, among `legal`. */
export function candidates(ui, legal) {
  if (!ui.pick) return [];
  return (legal ?? []).map(parseTurn).filter((t) =>
    ui.pick.kind ? isDrop(t) && kindOf(t) === ui.pick.kind : t.from === ui.pick.from,
  );
}

/** The next orientation at the destination; false when there is no other. */
export function rotate(ui) {
  if (ui.options.length < 2) return false;
  ui.option = (ui.option + 1) % ui.options.length;
  return true;
}

/** Turns the piece at its destination so that a minor dot lies on `cell`: the next such
 * orientation after the one shown (a cell two orientations share takes two clicks). */
function orient(ui, cell) {
  const count = ui.options.length;
  for (let i = 1; i <= count; i++) {
    const option = (ui.option + i) % count;
    if (ui.options[option].minors.includes(cell)) {
      ui.option = option;
      return;
    }
  }
}

/**
 * What a click on `cell` does to `ui`, given the `legal` turns, the `board` and the
 * colour `me` to move. Answers what happened, for the caller to say:
 * - `rotated`: the destination again turned the piece (`rotate`);
 * - `oriented`: a minor dot now lies on the cell;
 * - `destination`: the PÜNCT goes there (`ui.options` holds its orientations);
 * - `picked`: a piece of `me` on the board is picked;
 * - `frozen`: that piece has no legal move (nothing is picked);
 * - `elsewhere`: nothing of `me` there, and no picked piece's PÜNCT may go there.
 */
export function clickCell(ui, legal, board, me, cell) {
  if (ui.dest === cell) {
    rotate(ui);
    return 'rotated';
  }
  if (ui.dest && ui.options.some((t) => t.minors.includes(cell))) {
    orient(ui, cell);
    return 'oriented';
  }
  const picked = candidates(ui, legal);
  if (ui.pick && picked.some((t) => t.punct === cell)) {
    ui.dest = cell;
    ui.options = picked.filter((t) => t.punct === cell);
    ui.option = 0;
    return 'destination';
  }
  const top = board.find((s) => s.cell === cell)?.dots[0];
  if (!top || top.color !== me) return 'elsewhere';
  const piece = piecesOf(board).find((p) => p.key === `${top.color}-${top.piece}`);
  const from = piece.dots.find((d) => d.punct).cell;
  clearPick(ui);
  if (!legal.some((t) => parseTurn(t).from === from)) return 'frozen';
  ui.pick = { from, cells: piece.dots.map((d) => d.cell) };
  return 'picked';
}
