// The puzzles, `/puzzles`: positions from engine games (puzzles.json, made by `punct rules
// puzzles`) in which exactly one turn connects, stops the opponent's connection, or makes
// sure of the centre count. The turn is made on a practice board and checked here against
// the puzzle's one answer. A signed-in player's solved puzzles are kept by the server
// (`/api/me/puzzles`) and marked.

import { mountAccount } from './account.js';
import { api } from './api.js';
import { loadEngine } from './engine.js';
import { practiceBoard } from './practice.js';
import { cap, el } from './ui.js';

/** Every sentence of the page. */
const STRINGS = {
  title: 'PÜNCT — puzzles',
  heading: 'puzzles',
  lobby: 'Lobby',
  rules: 'How to play',
  tutorial: 'Tutorial',
  noEngine: 'The puzzles need the rules engine, which this server was built without (or this browser cannot run WebAssembly).',
  play: 'Play',
  cancel: 'Start again',
  next: 'Next puzzle',
  board: 'The puzzle\'s board: pick a piece, then a lit cell',
  chosen: (turn) => `${turn}: press Play, or click a lit cell to turn it`,
  puzzle: (n, goal) => `Puzzle ${n}: ${goal}`,
  solvedMark: ' ✓',
  goals: {
    connect: {
      name: 'connect',
      task: (color) => `${cap(color)} to move: join two opposite sides with this turn. Exactly one turn does it.`,
      hint: 'That does not connect. Look for the gap between your chain and a side: a drop, or a piece moved or jumping, may close it.',
    },
    stop: {
      name: 'stop the connection',
      task: (color) => `${cap(color)} to move: your opponent threatens to connect. Exactly one turn leaves them no winning reply.`,
      hint: 'After that, your opponent can still connect. Find where their chain would cross, and the one turn that blocks every way.',
    },
    centre: {
      name: 'win the centre count',
      task: (color) => `${cap(color)} to move, with one piece left: your next drop ends the game with the count of the central hexagon. Exactly one turn makes sure you win, whatever the reply.`,
      hint: 'That does not make sure of the count: your opponent has a reply that keeps you from winning. A piece moved into the centre, or off your opponent\'s dots there, changes the count.',
    },
  },
  right: 'Solved! That is the one turn that does it.',
  keepSignedIn: 'Your solved puzzles are kept with your account.',
  keepGuest: 'Sign in to keep the puzzles you solve.',
};

const $ = (id) => document.getElementById(id);

function say(text, kind = '') {
  $('message').textContent = text;
  $('message').dataset.kind = kind;
}

async function main() {
  document.title = STRINGS.title;
  for (const node of document.querySelectorAll('[data-text]')) node.textContent = STRINGS[node.dataset.text];
  $('board').setAttribute('aria-label', STRINGS.board);
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
  $('keeping').textContent = user ? STRINGS.keepSignedIn : STRINGS.keepGuest;
  let current = 0;

  const board = practiceBoard(
    engine,
    {
      svg: $('board'),
      reserve: $('reserve'),
      place: $('place'),
      cancel: $('cancel'),
      say,
      chosen: (turn) => say(STRINGS.chosen(turn)),
    },
    (turn) => {
      const puzzle = puzzles[current];
      const right = turn === puzzle.answer;
      $('feedback').hidden = false;
      $('feedback').dataset.kind = right ? 'success' : 'hint';
      $('feedback').textContent = right ? STRINGS.right : STRINGS.goals[puzzle.goal].hint;
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

  function renderList() {
    $('steps').replaceChildren(
      ...puzzles.map((puzzle, i) => {
        const done = solved.has(puzzle.id);
        const label = STRINGS.puzzle(i + 1, STRINGS.goals[puzzle.goal].name) + (done ? STRINGS.solvedMark : '');
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
    const goal = STRINGS.goals[puzzle.goal];
    $('title').textContent = STRINGS.puzzle(index + 1, goal.name) + (solved.has(puzzle.id) ? STRINGS.solvedMark : '');
    board.show({ variant: puzzle.variant, turns: puzzle.turns });
    $('text').textContent = goal.task(board.mover());
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
