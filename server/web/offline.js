// A game against the computer with no server, `/offline`: the rules in the page
// (engine.js) judge the player's turns, the engine in a worker (thinker.js) chooses the
// computer's, and the game is kept in this browser's localStorage, so that it goes on
// after a reload. The service worker (sw.js) keeps this page for when there is no
// network.

import { chainView, drawBoard, parseTurn } from './board.js';
import { loadEngine } from './engine.js';
import { Thinker, canThink } from './thinker.js';
import { installApp, outcomeText, refusalText, showReserve, side } from './ui.js';
import { t } from './i18n.js';

const $ = (id) => document.getElementById(id);
const rules = await loadEngine();

/** Where the game is kept. */
const KEPT = 'punct-offline-game';

/** How long the computer thinks on a turn. */
const BUDGET = 'ms 1000';

/** The game: `{variant, you, level, turns}`; the cell picked on the board. */
let game = JSON.parse(localStorage.getItem(KEPT) ?? 'null');
let cell = null;
const thinker = new Thinker();
/** The computer's search under way: the game and its length it searches for. */
let thinking = null;

function say(text, kind = '') {
  $('message').textContent = text;
  $('message').dataset.kind = kind;
}

function keep() {
  localStorage.setItem(KEPT, JSON.stringify(game));
}

function render() {
  const position = rules.position(game.variant, game.turns);
  const mine = !position.outcome && position.to_move === game.you;
  const legal = mine ? rules.legal(game.variant, game.turns) : [];
  const last = game.turns.length ? parseTurn(game.turns.at(-1)) : null;
  const choices = cell ? legal.filter((t) => [parseTurn(t).from, parseTurn(t).punct].includes(cell)) : [];
  drawBoard($('board'), {
    board: position.board,
    flip: game.you === 'black',
    last: last?.punct ? { from: last.from, to: [last.punct, ...last.minors] } : null,
    chain: chainView(position.chain),
    targets: choices.map((t) => parseTurn(t).punct),
    source: cell ? [cell] : [],
  });
  Object.assign($('board').dataset, { turns: String(game.turns.length), myTurn: String(mine), over: String(Boolean(position.outcome)) });
  // The player's own reserve first, as in the room.
  document.body.dataset.you = game.you;
  for (const color of ['white', 'black']) showReserve($(`reserve-${color}`), color, position.reserves[color]);
  $('status').textContent = position.outcome
    ? t('offline.over', { outcome: outcomeText(position.outcome, position.board), count: game.turns.length })
    : mine
      ? t('offline.your-turn', { side: side(position.to_move), level: game.level })
      : t('offline.thinking', { side: side(position.to_move) });
  $('turns').replaceChildren(
    ...game.turns.map((turn, i) => Object.assign(document.createElement('li'), { textContent: `${i % 2 ? '●' : '○'} ${turn}` })),
  );
  $('choices').hidden = !cell;
  $('choices-cell').textContent = cell ?? '';
  $('choice-list').replaceChildren(
    ...(choices.length
      ? choices.map((turn) => Object.assign(document.createElement('button'), { textContent: turn, onclick: () => play(turn) }))
      : [Object.assign(document.createElement('span'), { textContent: mine ? t('analysis.no-turn-here') : t('offline.not-your-turn') })]),
  );
  $('completions').replaceChildren(...legal.slice(0, 400).map((turn) => Object.assign(document.createElement('option'), { value: turn })));
  $('notation').disabled = !mine;
  if (!position.outcome && !mine && !(thinking?.game === game && thinking.length === game.turns.length)) answer();
}

/** Plays the player's `text`, if the rules take it. */
function play(text) {
  const checked = rules.check(game.variant, game.turns, text);
  if (checked.why) {
    say(t('offline.not-legal', { turn: text.trim(), why: refusalText(checked.rule, checked.args, checked.why) }), 'refused');
    return false;
  }
  game.turns.push(checked.turn);
  cell = null;
  keep();
  say(t('offline.you-played', { turn: checked.turn }));
  render();
  return true;
}

/** The computer's turn: asked of the engine, played if the game has not changed since. */
async function answer() {
  const asked = game;
  const turns = [...game.turns];
  const search = { game, length: turns.length };
  thinking = search;
  let choice;
  try {
    choice = await thinker.think(asked.variant, turns, asked.level, BUDGET);
  } catch (e) {
    if (e.message !== 'stopped') say(t('offline.computer-failed', { why: e.message }), 'error');
    return;
  } finally {
    if (thinking === search) thinking = null;
  }
  if (asked !== game || game.turns.length !== turns.length) return;
  game.turns.push(choice.turn);
  keep();
  say(t('offline.computer-played', { turn: choice.turn }));
  render();
}

function start(variant, you, level) {
  thinker.stop();
  game = { variant, you, level, turns: [] };
  cell = null;
  keep();
  say('');
  render();
}

$('board').addEventListener('click', (event) => {
  const picked = event.target.closest('[data-cell]')?.dataset.cell;
  if (!picked) return;
  cell = cell === picked ? null : picked;
  render();
});
$('notation-form').addEventListener('submit', (event) => {
  event.preventDefault();
  if (play($('notation').value)) $('notation').value = '';
});
$('new-game').addEventListener('submit', (event) => {
  event.preventDefault();
  start($('variant').value, $('color').value, Number($('level').value));
});

if (!rules || !canThink()) {
  $('no-engine').hidden = false;
  document.querySelector('main').hidden = true;
} else {
  if (game) {
    Object.assign($('variant'), { value: game.variant });
    Object.assign($('color'), { value: game.you });
    Object.assign($('level'), { value: String(game.level) });
    say(t('offline.goes-on', { count: game.turns.length }));
    render();
  } else {
    start('standard', 'white', 3);
  }
  document.body.dataset.loaded = 'true';
}
installApp();
