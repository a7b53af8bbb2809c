// A board on which the learner makes one turn, for the tutorial's lessons and the
// puzzles: pick a piece in the reserve or on the board, a lit cell for its PÜNCT, click a
// lit cell to turn it, and press Play. Only legal turns can be made (the rules engine in
// the page lists them); whether the turn is the right one is the page's question, asked
// through `judge`.

import { chainView, drawBoard, kindIcon, KINDS, parseTurn } from './board.js';
import { candidates, clearPick, clickCell as pickAt, emptyPick } from './pick.js';
import { t } from './i18n.js';
import { el } from './ui.js';

/**
 * Wires a practice board. `parts`: the board's `svg`, the `reserve` element for the
 * kind buttons, the `place` and `cancel` buttons, `say(text, kind)` for messages and
 * `chosen(turn)` to show the turn the piece placed so far would make.
 * `judge(turn)` is called with the canonical turn played and answers whether it was
 * right; a right turn stays on the board, a wrong one is taken back.
 */
export function practiceBoard(engine, parts, judge) {
  /** The task: its variant, turns, optional `frame`; the position and legal turns. */
  let task = null;
  /** What the learner has picked, as on the game page (pick.js). */
  const ui = emptyPick();
  /** The right turn once played: the board then shows the position after it. */
  let solved = null;

  function mover() {
    return task.position.to_move;
  }

  function render() {
    const shown = solved ? engine.position(task.variant, [...task.turns, solved]) : task.position;
    const played = solved ?? task.turns[task.turns.length - 1];
    const last = played ? parseTurn(played) : null;
    const picked = candidates(ui, task.legal);
    const chosen = ui.dest ? ui.options[ui.option] : null;
    drawBoard(parts.svg, {
      board: shown.board,
      frame: task.frame,
      marked: task.marked,
      chain: chainView(shown.chain),
      last: last?.punct ? { from: last.from, to: [last.punct, ...last.minors] } : null,
      targets: ui.dest ? [] : [...new Set(picked.map((turn) => turn.punct))],
      minors: ui.dest ? [...new Set(ui.options.flatMap((turn) => turn.minors))] : [],
      source: ui.pick?.cells ?? [],
      ghost: chosen ? { ...chosen, color: mover() } : null,
    });
    // The turn the preview shows, for tests and tools, as the game page's board keeps it.
    parts.svg.dataset.ghost = chosen?.text ?? '';
    const counts = task.position.reserves[mover()];
    const droppable = new Set(droppableKinds());
    parts.reserve.replaceChildren(
      ...Object.keys(KINDS).map((kind) => {
        const button = el('button', {
          className: `kind ${mover()}${ui.pick?.kind === kind ? ' picked' : ''}`,
          title: KINDS[kind],
          disabled: Boolean(solved) || !droppable.has(kind),
          dataset: { kind },
        });
        button.setAttribute('aria-label', t('practice.kind-left', { kind: KINDS[kind], count: counts[kind] }));
        button.append(kindIcon(kind, mover()), ` ×${counts[kind]}`);
        return button;
      }),
    );
    parts.place.disabled = !chosen || Boolean(solved);
    parts.cancel.disabled = Boolean(solved);
  }

  /** The kinds some legal drop uses. */
  function droppableKinds() {
    return Object.keys(KINDS).filter((kind) => candidates({ pick: { kind } }, task.legal).length > 0);
  }

  function clickCell(cell) {
    if (!task || solved) return;
    const done = pickAt(ui, task.legal, task.position.board, mover(), cell);
    if (['rotated', 'oriented', 'destination'].includes(done)) parts.chosen(ui.options[ui.option].text);
    else if (done === 'picked') parts.say(t('input.piece-picked'));
    else if (done === 'frozen') parts.say(t('input.cannot-move'), 'refused');
    else parts.say(ui.pick ? t('input.no-turn-there') : t('practice.not-yours'), 'refused');
    render();
  }

  parts.reserve.addEventListener('click', (event) => {
    const kind = event.target.closest('button.kind')?.dataset.kind;
    if (!kind || solved) return;
    clearPick(ui);
    ui.pick = { kind };
    parts.say(t('input.kind-picked', { kind: KINDS[kind] }));
    render();
  });
  parts.svg.addEventListener('click', (event) => {
    const cell = event.target.closest('[data-cell]')?.dataset.cell;
    if (cell) clickCell(cell);
  });
  parts.svg.addEventListener('keydown', (event) => {
    const cell = event.target.closest('[data-cell]')?.dataset.cell;
    if (cell && (event.key === 'Enter' || event.key === ' ')) {
      event.preventDefault();
      clickCell(cell);
    }
  });
  parts.place.addEventListener('click', () => {
    if (!ui.dest || solved) return;
    const turn = ui.options[ui.option].text;
    clearPick(ui);
    if (judge(turn)) solved = turn;
    render();
  });
  parts.cancel.addEventListener('click', () => {
    clearPick(ui);
    parts.say('');
    render();
  });

  return {
    /** Sets a new task: `{variant, turns, frame?, marked?}` (`frame`: cells to crop the
     * board to; `marked`: cells to mark). */
    show(next) {
      task = {
        ...next,
        position: engine.position(next.variant, next.turns),
        legal: engine.legal(next.variant, next.turns),
      };
      solved = null;
      clearPick(ui);
      render();
    },
    /** The side to move in the task. */
    mover,
  };
}
