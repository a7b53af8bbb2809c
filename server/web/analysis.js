// The analysis board, `/analysis`: any position of any game (a room's, live or finished,
// with `?room=ID&after=N`; a pasted record; a shared link) to play variations on, with the
// rules engine in the page and without touching any game. The line shown lives in the
// address's fragment, `#variant/turn/turn/…@N`, so that a link shares it.
//
// The computer's evaluation and best line come from the engine in a worker (thinker.js),
// to a chosen depth or for a chosen time. It is refused for a room whose game is not over
// while this browser holds a seat there (by its seat token or its account, as the
// server's data for the room shows them): no hints in one's own live game.

import { api, currentUser, holdsSeat } from './api.js';
import { chainView, drawBoard, parseTurn } from './board.js';
import { loadEngine } from './engine.js';
import { Thinker, canThink, evaluationText } from './thinker.js';
import { installApp, outcomeText, refusalText, side, startingText } from './ui.js';
import { lang, t } from './i18n.js';

const $ = (id) => document.getElementById(id);
const engine = await loadEngine();

/** What the board shows: the line's turns, how many of them are played, and the game's
 * own line when it came from a room (to come back to after a variation). */
const state = { variant: 'standard', line: [], at: 0, game: null, flip: false, cell: null };

/** The engine's search: its worker, and the position its answer shown is for. */
const thinker = new Thinker();
const analysis = { key: null, hintsRefused: false };

function say(text, kind = '') {
  $('message').textContent = text;
  $('message').dataset.kind = kind;
}

/** The turns played to the position shown. */
function played() {
  return state.line.slice(0, state.at);
}

function fragment() {
  return `#${[state.variant, ...state.line].join('/')}@${state.at}`;
}

/** Reads a line from a fragment made by `fragment`; false when there is none. */
function readFragment(hash) {
  const match = /^#(standard|basic)((?:\/[^/@]+)*)(?:@(\d+))?$/.exec(decodeURIComponent(hash));
  if (!match) return false;
  const line = match[2].split('/').filter(Boolean);
  try {
    engine.legal(match[1], line);
  } catch (e) {
    say(t('analysis.bad-link', { why: e.message }), 'error');
    return false;
  }
  Object.assign(state, { variant: match[1], line, at: Math.min(line.length, Number(match[3] ?? line.length)) });
  return true;
}

/** The position shown, as a key for the engine's answer. */
function positionKey() {
  return `${state.variant} ${played().join(' ')}`;
}

function render() {
  history.replaceState(null, '', `${location.pathname}${location.search}${fragment()}`);
  if (analysis.key !== null && analysis.key !== positionKey()) clearAnalysis();
  const position = engine.position(state.variant, played());
  const legal = position.outcome ? [] : engine.legal(state.variant, played());
  const lastTurn = state.at > 0 ? parseTurn(state.line[state.at - 1]) : null;
  const choices = state.cell ? legal.filter((t) => [parseTurn(t).from, parseTurn(t).punct].includes(state.cell)) : [];
  drawBoard($('board'), {
    board: position.board,
    flip: state.flip,
    last: lastTurn?.punct ? { from: lastTurn.from, to: [lastTurn.punct, ...lastTurn.minors] } : null,
    chain: chainView(position.chain),
    targets: choices.map((t) => parseTurn(t).punct),
    source: state.cell ? [state.cell] : [],
  });
  $('status').textContent = position.outcome
    ? t('analysis.over', { outcome: outcomeText(position.outcome, position.board), count: state.at })
    : t('analysis.status', { side: side(position.to_move), legal: legal.length, count: state.at });
  $('turns').replaceChildren(
    ...state.line.map((turn, i) => {
      const item = document.createElement('li');
      const button = Object.assign(document.createElement('button'), { textContent: `${i % 2 ? '●' : '○'} ${turn}` });
      button.dataset.n = String(i + 1);
      if (i + 1 === state.at) button.setAttribute('aria-current', 'step');
      item.append(button);
      return item;
    }),
  );
  const onGameLine = state.game && state.line.every((t, i) => state.game.turns[i] === t) && state.line.length <= state.game.turns.length;
  $('variation').hidden = !state.game || onGameLine;
  $('choices').hidden = !state.cell;
  $('choices-cell').textContent = state.cell ?? '';
  $('choice-list').replaceChildren(
    ...(choices.length ? choices : ['none']).map((turn) =>
      turn === 'none'
        ? Object.assign(document.createElement('span'), { textContent: t('analysis.no-turn-here') })
        : Object.assign(document.createElement('button'), { textContent: turn, onclick: () => play(turn) }),
    ),
  );
  $('completions').replaceChildren(
    ...legal.slice(0, 400).map((turn) => Object.assign(document.createElement('option'), { value: turn })),
  );
  const { record } = engine.ask('export', state.variant, played());
  // One download link at a time: the last one's blob is let go.
  if ($('export').href.startsWith('blob:')) URL.revokeObjectURL($('export').href);
  $('export').href = URL.createObjectURL(new Blob([record], { type: 'text/plain' }));
}

function clearAnalysis() {
  thinker.stop();
  analysis.key = null;
  $('engine-eval').textContent = '';
  $('engine-stats').textContent = '';
  $('engine-line').replaceChildren();
  $('stop-engine').hidden = true;
  delete $('engine-panel').dataset.analysed;
}

/** Asks the engine about the position shown and shows its evaluation and line. */
async function analyse() {
  if (analysis.hintsRefused) return;
  clearAnalysis();
  const key = positionKey();
  const turns = played();
  const { to_move: toMove, outcome } = engine.position(state.variant, turns);
  if (outcome) {
    $('engine-eval').textContent = t('analysis.engine-over');
    return;
  }
  analysis.key = key;
  $('engine-eval').textContent = t('analysis.thinking');
  $('stop-engine').hidden = false;
  const started = performance.now();
  let answer;
  try {
    answer = await thinker.think(state.variant, turns, 5, $('engine-limit').value);
  } catch (e) {
    if (analysis.key === key && e.message !== 'stopped') $('engine-eval').textContent = t('analysis.engine-failed', { why: e.message });
    return;
  } finally {
    if (analysis.key === key) $('stop-engine').hidden = true;
  }
  if (analysis.key !== key) return;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  $('engine-eval').textContent = evaluationText(answer, toMove);
  $('engine-stats').textContent = t('analysis.engine-stats', { count: answer.depth, nodes: answer.nodes.toLocaleString(lang), seconds });
  $('engine-line').replaceChildren(
    ...answer.line.map((turn, i) => {
      const button = Object.assign(document.createElement('button'), { textContent: turn, title: t('analysis.play-line') });
      button.onclick = () => {
        const line = [...played(), ...answer.line.slice(0, i + 1)];
        Object.assign(state, { line, at: line.length, cell: null });
        render();
      };
      const item = document.createElement('li');
      item.append(button);
      return item;
    }),
  );
  $('engine-panel').dataset.analysed = key;
}

function refuseHints(refused) {
  analysis.hintsRefused = refused;
  $('engine-refused').hidden = !refused;
  $('engine-form').hidden = refused;
}

/** Refuses hints when this browser holds a seat in `room`'s game and it is not over. */
async function refuseHintsInOwnGame(room) {
  const [summary, me] = await Promise.all([api('GET', `/api/rooms/${encodeURIComponent(room)}`), currentUser()]);
  refuseHints(summary.status !== 'over' && holdsSeat(summary, me));
}

/** Plays `text` from the position shown: the line after it gives way to the new turn. */
function play(text) {
  const answer = engine.check(state.variant, played(), text);
  if (answer.why) {
    say(t('analysis.not-legal', { turn: text.trim(), why: refusalText(answer.rule, answer.args, answer.why) }), 'refused');
    return false;
  }
  state.line = [...played(), answer.turn];
  state.at = state.line.length;
  state.cell = null;
  say(t('analysis.played', { turn: answer.turn }));
  render();
  return true;
}

function show(at) {
  state.at = Math.max(0, Math.min(state.line.length, at));
  state.cell = null;
  render();
}

async function fromRoom(room, after) {
  const record = await api('GET', `/api/rooms/${encodeURIComponent(room)}/record`);
  state.game = { room, turns: record.turns };
  Object.assign(state, { variant: record.variant, line: [...record.turns] });
  state.at = after === null ? record.turns.length : Math.min(Number(after), record.turns.length);
  const link = Object.assign(document.createElement('a'), { href: `/room/${encodeURIComponent(room)}`, textContent: t('analysis.its-room') });
  $('source').replaceChildren(t('analysis.from-game'), ' ', link, '.');
}

$('board').addEventListener('click', (event) => {
  const cell = event.target.closest('[data-cell]')?.dataset.cell;
  if (!cell) return;
  state.cell = state.cell === cell ? null : cell;
  render();
});
$('turns').addEventListener('click', (event) => {
  const n = event.target.closest('[data-n]')?.dataset.n;
  if (n !== undefined) show(Number(n));
});
$('back').onclick = () => show(state.at - 1);
$('forward').onclick = () => show(state.at + 1);
addEventListener('keydown', (event) => {
  if (event.target instanceof Element && event.target.closest('input, textarea, select')) return;
  if (event.key === 'ArrowLeft') show(state.at - 1);
  if (event.key === 'ArrowRight') show(state.at + 1);
});
$('flip').onclick = () => {
  state.flip = !state.flip;
  render();
};
$('game-line').onclick = () => {
  // Back where the variation left the game.
  const branch = state.line.findIndex((turn, i) => turn !== state.game.turns[i]);
  state.line = [...state.game.turns];
  show(branch === -1 ? state.at : branch);
};
$('engine-form').addEventListener('submit', (event) => {
  event.preventDefault();
  analyse();
});
$('stop-engine').onclick = clearAnalysis;
$('copy-link').onclick = async () => {
  await navigator.clipboard?.writeText(location.href).catch(() => {});
  say(t('analysis.copied'));
};
$('notation').addEventListener('input', (event) => {
  const text = event.target.value.trim().toUpperCase();
  if (!text) return;
  const starting = [...$('completions').options].filter((o) => o.value.startsWith(text)).length;
  say(starting ? startingText(starting) : t('input.none-start'), starting ? '' : 'refused');
});
$('notation-form').addEventListener('submit', (event) => {
  event.preventDefault();
  if (play($('notation').value)) $('notation').value = '';
});
$('import-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const variant = $('variant').value;
  let turns;
  try {
    turns = engine.record(variant, $('record').value);
  } catch (e) {
    say(t('analysis.bad-record', { why: e.message }), 'error');
    return;
  }
  Object.assign(state, { variant, line: turns, at: turns.length, game: null, cell: null });
  $('source').textContent = t('analysis.imported');
  say(t('analysis.loaded', { count: turns.length }));
  render();
});

if (!engine) {
  $('no-engine').hidden = false;
  document.querySelector('main').hidden = true;
} else {
  const query = new URLSearchParams(location.search);
  const room = query.get('room');
  $('engine-panel').hidden = !canThink();
  // The check comes first, whatever the fragment shows: it is the room's game.
  let checked = !room;
  try {
    if (room) await refuseHintsInOwnGame(room);
    checked = true;
    if (!readFragment(location.hash) && room) await fromRoom(room, query.get('after'));
  } catch (e) {
    // Without the room's data (no server, say), no hints either.
    if (!checked) refuseHints(true);
    say(t('analysis.not-loaded', { why: e.message }), 'error');
  }
  render();
  document.body.dataset.loaded = 'true';
  installApp();
}
