// The puzzles, `/puzzles`: positions from engine games (puzzles.json, made by `punct rules
// puzzles`) in which exactly one turn connects, stops the opponent's connection, or makes
// sure of the centre count. The turn is made on a practice board and checked here against
// the puzzle's one answer. A signed-in player's solved puzzles are kept by the server
// (`/api/me/puzzles`) and marked.

import { mountAccount } from './account.js';
import { api } from './api.js';
import { loadEngine } from './engine.js';
import { practiceBoard } from './practice.js';
import { t } from './i18n.js';
import { el, side } from './ui.js';

/** Marks a solved puzzle in its name. */
const SOLVED_MARK = ' ✓';

/** The words of `puzzle`'s goal: its `name`, `task` or `hint`. */
function goal(puzzle, part, values) {
  return t(`puzzles.goal.${puzzle.goal}.${part}`, values);
}

const $ = (id) => document.getElementById(id);

function say(text, kind = '') {
  $('message').textContent = text;
  $('message').dataset.kind = kind;
}

async function main() {
  const [user, engine, file] = await Promise.all([
    mountAccount($('account')),
    loadEngine(),
    fetch(new URL('./puzzles.json', import.meta.url)).then((response) => response.json()),
  ]);
  if (!engine) {
    $('no-engine').hidden = false;
    document.querySelector('main').hidden = true;
    return;
  }
  const { puzzles } = file;
  const solved = new Set(user ? (await api('GET', '/api/me/puzzles')).solved : []);
  $('keeping').textContent = user ? t('puzzles.keep.signed-in') : t('puzzles.keep.guest');
  let current = 0;

  const board = practiceBoard(
    engine,
    {
      svg: $('board'),
      reserve: $('reserve'),
      place: $('place'),
      cancel: $('cancel'),
      say,
      chosen: (turn) => say(t('practice.chosen', { turn })),
    },
    (turn) => {
      const puzzle = puzzles[current];
      const right = turn === puzzle.answer;
      $('feedback').hidden = false;
      $('feedback').dataset.kind = right ? 'success' : 'hint';
      $('feedback').textContent = right ? t('puzzles.right') : goal(puzzle, 'hint');
      say('');
      if (right) {
        solved.add(puzzle.id);
        if (user) api('POST', '/api/me/puzzles', { puzzle: puzzle.id }).catch((e) => say(e.message, 'error'));
        $('next').hidden = current + 1 >= puzzles.length;
        renderList();
      }
      return right;
    },
  );

  /** The name of puzzle number `index` (from 0), marked when solved. */
  function named(index) {
    const puzzle = puzzles[index];
    const name = t('puzzles.step', { n: index + 1, goal: goal(puzzle, 'name') });
    return name + (solved.has(puzzle.id) ? SOLVED_MARK : '');
  }

  function renderList() {
    $('steps').replaceChildren(
      ...puzzles.map((puzzle, i) => {
        const done = solved.has(puzzle.id);
        const label = named(i);
        const button = el('button', { type: 'button', className: done ? 'done' : '', dataset: { puzzle: puzzle.id } }, String(i + 1));
        button.title = label;
        button.setAttribute('aria-label', label);
        if (i === current) button.setAttribute('aria-current', 'step');
        button.onclick = () => open(i);
        return el('li', {}, button);
      }),
    );
  }

  function open(index) {
    current = index;
    const puzzle = puzzles[index];
    $('title').textContent = named(index);
    board.show({ variant: puzzle.variant, turns: puzzle.turns });
    $('text').textContent = goal(puzzle, 'task', { colour: side(board.mover()) });
    $('feedback').hidden = true;
    $('next').hidden = true;
    say('');
    renderList();
    history.replaceState(null, '', `#${puzzle.id}`);
  }

  $('next').onclick = () => open(Math.min(current + 1, puzzles.length - 1));
  const asked = puzzles.findIndex((puzzle) => `#${puzzle.id}` === location.hash);
  open(asked === -1 ? 0 : asked);
  document.body.dataset.loaded = 'true';
}

main();
