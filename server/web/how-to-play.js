// The how-to-play page: the rules in short, each illustrated by a board drawn with the
// game page's own drawing code (board.js). Every picture is a position reached by legal
// turns (lessons.json), replayed here by the page's rules engine, so the page cannot
// show a position the rules forbid.

import { mountAccount } from './account.js';
import { CENTRE, chainView, drawBoard, kindIcon, KINDS, parseTurn } from './board.js';
import { loadEngine } from './engine.js';
import { el, outcomeText } from './ui.js';
import { t } from './i18n.js';

/** How many pieces of each kind a player has (RULES.md section 2), in `KINDS`' order. */
const COUNTS = { 'straight-middle': 2, 'straight-end': 4, 'angular-corner': 2, 'angular-left': 2, 'angular-right': 2, triangle: 6 };

/** Size of a cropped picture: pixels per unit of the board's drawing, so that a dot is
 * about 32 px across where the page is wide enough (a phone's is). */
const SCALE = 1.7;

/** The cells of a parsed turn, PÜNCT first. */
function cellsOf(turn) {
  return [turn.punct, ...turn.minors];
}

/** What `drawBoard` draws for `picture`, given the `position` its turns reach. */
function viewOf(engine, picture, position) {
  const view = { board: position.board, chain: chainView(position.chain) };
  // The picture is cropped to what it is about: the last turn, the next one, the chain.
  const about = [];
  if (picture.turns.length > 0) {
    const last = parseTurn(picture.turns[picture.turns.length - 1]);
    view.last = { from: last.from, to: cellsOf(last) };
    about.push(...cellsOf(last), ...(last.from ? [last.from] : []));
  }
  if (picture.next) {
    const next = parseTurn(picture.next);
    const lifted = position.board.find((stack) => stack.cell === next.from).dots[0];
    view.source = position.board
      .filter((stack) => stack.dots[0].color === lifted.color && stack.dots[0].piece === lifted.piece)
      .map((stack) => stack.cell);
    // Where the engine lets this PÜNCT go.
    view.targets = engine
      .legal(picture.variant, picture.turns)
      .map(parseTurn)
      .filter((turn) => turn.from === next.from)
      .map((turn) => turn.punct);
    view.ghost = { ...next, color: lifted.color };
    about.push(...view.source, ...cellsOf(next));
  }
  if (view.chain) about.push(...view.chain.cells);
  // A game the count of the centre decided is about the centre, not its last drop.
  const counted = ['centre', 'centre-tie'].includes(position.outcome?.reason);
  if (about.length > 0) view.frame = counted ? CENTRE : about;
  return view;
}

async function drawPictures() {
  const [engine, lessons] = await Promise.all([
    loadEngine(),
    fetch(new URL('./lessons.json', import.meta.url)).then((response) => response.json()),
  ]);
  for (const svg of document.querySelectorAll('svg[data-board]')) {
    if (!engine) {
      svg.replaceWith(el('p', {}, t('picture.no-engine')));
      continue;
    }
    const picture = lessons.pictures[svg.dataset.board];
    const position = engine.position(picture.variant, picture.turns);
    const view = viewOf(engine, picture, position);
    drawBoard(svg, view);
    const result = document.querySelector(`[data-result="${svg.dataset.board}"]`);
    if (result && position.outcome) result.textContent = `${outcomeText(position.outcome, position.board)}.`;
    if (view.frame) {
      svg.classList.add('cropped');
      svg.style.width = `${svg.viewBox.baseVal.width * SCALE}px`;
    }
  }
}

document.getElementById('kind-list').replaceChildren(
  ...Object.entries(KINDS).map(([kind, name]) => el('li', {}, kindIcon(kind, 'white'), ` ${COUNTS[kind]} × ${name}`)),
);
mountAccount(document.getElementById('account'));
drawPictures();
