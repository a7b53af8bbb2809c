// The analysis board, `/analysis`: any position of any game (a room's, live or finished,
// with `?room=ID&after=N`; a pasted record; a shared link) to play variations on, with the
// rules engine in the page and without touching any game. The line shown lives in the
// address's fragment, `#variant/turn/turn/…@N`, so that a link shares it.
//
// The computer's evaluation and its three best lines come from the engine in a worker
// (thinker.js), to a chosen depth or for a chosen time: the score, a bar of White's
// chance to win (review.js), and the best turn drawn on the board. The computer analysis
// of the whole line (of a finished game, say) judges every position in a second worker,
// marks each player's inaccuracies, mistakes and blunders with the better turn, draws
// White's chance over the game and gives each player's accuracy. Both are refused for a
// room whose game is not over while this browser holds a seat there (by its seat token or
// its account, as the server's data for the room shows them): no hints in one's own live
// game.

import { api, currentUser, holdsSeat } from './api.js';
import { chainView, drawBoard, parseTurn } from './board.js';
import { loadEngine } from './engine.js';
import { GLYPHS, outcomeChance, review, winChance } from './review.js';
import { Thinker, canThink, evaluationText, scoreText } from './thinker.js';
import { el, installApp, outcomeText, refusalText, showReserve, side, startingText, turnName } from './ui.js';
import { lang, t } from './i18n.js';

const $ = (id) => document.getElementById(id);
const engine = await loadEngine();

/** What the board shows: the line's turns, how many of them are played, and the game's
 * own line when it came from a room (to come back to after a variation). */
const state = { variant: 'standard', line: [], at: 0, game: null, flip: false, cell: null };

/** The engine's search: its worker, the position its answer shown is for, and the
 * answer (the lines, best first, and the side to move they are for). */
const thinker = new Thinker();
const analysis = { key: null, hintsRefused: false, lines: null, toMove: null };

/** How deep the analysis of a game searches each position: an even depth, so that no
 * position's search ends on an extra turn of its mover (an odd depth makes every
 * position look better for its mover than the one before, and each turn a loss); two
 * plies and the exact wins at its leaves see a connection one turn off, quickly. */
const REVIEW_LIMIT = 'depth 2';

/** The lines the engine shows for a position. */
const LINES = 3;

/** The analysis of a whole line: its own worker, so that the board's engine can think
 * meanwhile; `done` is `{variant, line, positions, result}` once it has run. */
const reviewer = new Thinker();
const reviewing = { running: false, done: null };

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

/** The engine's view of the position shown, if it has one: the board's own analysis, or
 * the game's analysis when the position is on its line. `{chance, best}`. */
function engineView() {
  if (analysis.lines && analysis.key === positionKey()) {
    return { chance: winChance(analysis.lines[0], analysis.toMove), best: analysis.lines[0].turn };
  }
  return onReviewedLine() ? reviewing.done.positions[state.at] : null;
}

/** Whether the position shown is on the line the game's analysis judged. */
function onReviewedLine() {
  const done = reviewing.done;
  return Boolean(done && done.variant === state.variant && state.at < done.positions.length && played().every((t, i) => done.line[i] === t));
}

function render() {
  history.replaceState(null, '', `${location.pathname}${location.search}${fragment()}`);
  if (analysis.key !== null && analysis.key !== positionKey()) clearAnalysis();
  const position = engine.position(state.variant, played());
  const legal = position.outcome ? [] : engine.legal(state.variant, played());
  const lastTurn = state.at > 0 ? parseTurn(state.line[state.at - 1]) : null;
  const choices = state.cell ? legal.filter((t) => [parseTurn(t).from, parseTurn(t).punct].includes(state.cell)) : [];
  const view = position.outcome ? { chance: outcomeChance(position.outcome) } : engineView();
  const best = view?.best && !state.cell ? { ...parseTurn(view.best), color: position.to_move } : null;
  drawBoard($('board'), {
    board: position.board,
    flip: state.flip,
    last: lastTurn?.punct ? { from: lastTurn.from, to: [lastTurn.punct, ...lastTurn.minors] } : null,
    chain: chainView(position.chain),
    targets: choices.map((t) => parseTurn(t).punct),
    source: state.cell ? [state.cell] : [],
    ghost: best?.punct ? best : null,
    arrow: best?.from ? { from: best.from, to: best.punct } : null,
  });
  $('board').dataset.hint = best?.text ?? '';
  renderBar(view?.chance);
  for (const color of ['white', 'black']) showReserve($(`reserve-${color}`), color, position.reserves[color]);
  $('status').textContent = position.outcome
    ? t('analysis.over', { outcome: outcomeText(position.outcome, position.board), count: state.at })
    : t('analysis.status', { side: side(position.to_move), legal: legal.length, count: state.at });
  renderTurns();
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
  renderReview();
}

/** The bar of White's chance to win (0 to 1), hidden without one. */
function renderBar(chance) {
  $('eval-bar').hidden = chance === undefined;
  if (chance === undefined) return;
  const percent = Math.round(chance * 100);
  $('eval-white').style.width = `${chance * 100}%`;
  $('eval-text').textContent = t('analysis.chance', { percent });
  $('eval-bar').setAttribute('aria-label', t('analysis.chance', { percent }));
  $('eval-bar').dataset.percent = String(percent);
}

/** The line's turns two to a line, numbered by moves as the room numbers them, with the
 * game's analysis's marks where the line is the one it judged. */
function renderTurns() {
  const done = reviewing.done;
  const marks = done && done.variant === state.variant ? done.result.turns : [];
  const moves = [];
  state.line.forEach((turn, i) => {
    const color = i % 2 ? 'black' : 'white';
    if (color === 'white') moves.push(el('li'));
    const mark = marks[i]?.turn === turn && state.line.slice(0, i).every((t, j) => done.line[j] === t) ? marks[i].mark : null;
    const button = el(
      'button',
      { type: 'button', className: `turn ${color}${i + 1 === state.at ? ' current' : ''}`, dataset: { n: i + 1 }, ariaLabel: `${turnName(i + 1)}: ${turn}` },
      el('span', { className: 'side-mark', ariaHidden: 'true' }, color === 'white' ? '○' : '●'),
      el('span', { className: 'text' }, turn),
      mark ? el('span', { className: `glyph ${mark}`, title: t(`review.${mark}`) }, GLYPHS[mark]) : null,
    );
    if (mark) button.dataset.mark = mark;
    if (i + 1 === state.at) button.setAttribute('aria-current', 'step');
    moves.at(-1).append(button);
  });
  $('turns').replaceChildren(...moves);
  const current = $('turns').querySelector('.current');
  if (current) $('turns').scrollTop = current.offsetTop - $('turns').clientHeight / 2;
}

function clearAnalysis() {
  thinker.stop();
  Object.assign(analysis, { key: null, lines: null, toMove: null });
  $('engine-eval').textContent = '';
  $('engine-stats').textContent = '';
  $('engine-lines').replaceChildren();
  $('stop-engine').hidden = true;
  delete $('engine-panel').dataset.analysed;
}

/** Asks the engine about the position shown and shows its evaluation and lines. */
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
  let lines;
  try {
    lines = await thinker.lines(state.variant, turns, 5, $('engine-limit').value, LINES);
  } catch (e) {
    if (analysis.key === key && e.message !== 'stopped') $('engine-eval').textContent = t('analysis.engine-failed', { why: e.message });
    return;
  } finally {
    if (analysis.key === key) $('stop-engine').hidden = true;
  }
  if (analysis.key !== key) return;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const [answer] = lines;
  Object.assign(analysis, { lines, toMove });
  $('engine-eval').textContent = evaluationText(answer, toMove);
  const nodes = lines.reduce((sum, line) => sum + line.nodes, 0);
  $('engine-stats').textContent = t('analysis.engine-stats', { count: answer.depth, nodes: nodes.toLocaleString(lang), seconds });
  const white = toMove === 'white' ? 1 : -1;
  $('engine-lines').replaceChildren(
    ...lines.map((choice) => {
      const score = choice.end_in === undefined ? scoreText(choice.score * white) : evaluationText(choice, toMove);
      const buttons = choice.line.map((turn, i) =>
        el('button', {
          type: 'button',
          textContent: turn,
          title: t('analysis.play-line'),
          onclick: () => {
            const line = [...played(), ...choice.line.slice(0, i + 1)];
            Object.assign(state, { line, at: line.length, cell: null });
            render();
          },
        }),
      );
      return el('li', {}, el('span', { className: 'line-score' }, score), ...buttons);
    }),
  );
  $('engine-panel').dataset.analysed = key;
  render();
}

/** Judges every position of the line shown, in the second worker, and shows the marks,
 * the graph and the accuracies. */
async function reviewLine() {
  if (analysis.hintsRefused || reviewing.running) return;
  const variant = state.variant;
  const line = [...state.line];
  reviewing.running = true;
  reviewing.done = null;
  $('review-start').hidden = true;
  $('review-stop').hidden = false;
  const started = performance.now();
  const positions = [];
  try {
    for (let i = 0; i <= line.length; i++) {
      $('review-progress').textContent = t('review.progress', { done: i, total: line.length + 1 });
      const turns = line.slice(0, i);
      const { to_move: toMove, outcome } = engine.position(variant, turns);
      if (outcome) {
        positions.push({ chance: outcomeChance(outcome), forced: outcome.winner });
        break;
      }
      const answer = await reviewer.think(variant, turns, 5, REVIEW_LIMIT);
      const forced = answer.end_in === undefined ? undefined : (answer.end_in > 0) === (toMove === 'white') ? 'white' : 'black';
      positions.push({ chance: winChance(answer, toMove), best: answer.turn, forced });
    }
  } catch (e) {
    $('review-progress').textContent = e.message === 'stopped' ? '' : t('review.failed', { why: e.message });
    return;
  } finally {
    reviewing.running = false;
    $('review-start').hidden = false;
    $('review-stop').hidden = true;
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  reviewing.done = { variant, line, positions, result: review(positions, line.slice(0, positions.length - 1)) };
  $('review-progress').textContent = t('review.done', { total: positions.length, seconds });
  $('review-panel').dataset.reviewed = 'true';
  render();
}

/** The game's analysis: the graph of White's chance, each player's accuracy and marks,
 * and the marked turns with the better ones. */
function renderReview() {
  $('review-panel').hidden = analysis.hintsRefused || !canThink() || state.line.length === 0;
  const done = reviewing.done;
  // (An SVG element has no `hidden` property: the attribute itself.)
  $('review-graph').toggleAttribute('hidden', !done);
  if (!done) {
    $('review-summary').replaceChildren();
    $('review-marks').replaceChildren();
    return;
  }
  drawGraph(done);
  const { accuracy, counts, turns } = done.result;
  $('review-summary').replaceChildren(
    ...['white', 'black'].map((color) =>
      el(
        'p',
        { dataset: { color } },
        el('b', {}, accuracy[color] === null ? side(color) : t('review.accuracy', { side: side(color), accuracy: Math.round(accuracy[color]) })),
        ' ',
        ['inaccuracy', 'mistake', 'blunder'].map((mark) => `${t(`review.${mark}-count`)}: ${counts[color][mark]}`).join(' · '),
      ),
    ),
  );
  $('review-marks').replaceChildren(
    ...turns
      .filter((turn) => turn.mark)
      .map((turn) => {
        const said = t(turn.better ? 'review.mark-better' : 'review.mark', {
          mark: t(`review.${turn.mark}`),
          // Whole points, down: a mark's threshold is never shown crossed the other way.
          lost: Math.floor(turn.lost),
          better: turn.better,
        });
        // The position before the turn: the board shows the better turn there.
        const go = el('button', { type: 'button', onclick: () => showReviewed(turn.n - 1) }, `${turnName(turn.n)} ${turn.turn}${GLYPHS[turn.mark]}`);
        return el('li', { className: turn.mark, dataset: { mark: turn.mark, n: turn.n } }, go, ' ', said);
      }),
  );
}

/** Shows the position after `n` turns of the line the game's analysis judged. */
function showReviewed(n) {
  state.line = [...reviewing.done.line];
  show(n);
}

/** White's chance after each turn, from 0 at the bottom to 1 at the top: an area over the
 * game, the marked turns as coloured strokes, the position shown as a line; a click goes
 * to the position under it. */
function drawGraph(done) {
  const svg = $('review-graph');
  const n = Math.max(1, done.positions.length - 1);
  const WIDTH = 300;
  const HEIGHT = 80;
  const x = (i) => (i / n) * WIDTH;
  const y = (chance) => HEIGHT * (1 - chance);
  const NS = 'http://www.w3.org/2000/svg';
  const node = (name, attrs) => {
    const e = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    svg.append(e);
    return e;
  };
  svg.replaceChildren();
  svg.setAttribute('viewBox', `0 0 ${WIDTH} ${HEIGHT}`);
  svg.setAttribute('preserveAspectRatio', 'none');
  const points = done.positions.map((p, i) => `${x(i)},${y(p.chance)}`);
  node('rect', { class: 'graph-black', x: 0, y: 0, width: WIDTH, height: HEIGHT });
  node('polygon', { class: 'graph-white', points: `0,${HEIGHT} ${points.join(' ')} ${x(done.positions.length - 1)},${HEIGHT}` });
  node('line', { class: 'graph-middle', x1: 0, y1: HEIGHT / 2, x2: WIDTH, y2: HEIGHT / 2 });
  for (const turn of done.result.turns.filter((turn) => turn.mark)) {
    node('line', { class: `graph-mark ${turn.mark}`, x1: x(turn.n), y1: 0, x2: x(turn.n), y2: HEIGHT });
  }
  if (onReviewedLine()) node('line', { class: 'graph-now', x1: x(state.at), y1: 0, x2: x(state.at), y2: HEIGHT });
  // One band a position, to click.
  done.positions.forEach((_, i) => {
    const band = node('rect', { class: 'graph-band', x: x(i) - WIDTH / n / 2, y: 0, width: WIDTH / n, height: HEIGHT, 'data-n': i });
    band.append(Object.assign(document.createElementNS(NS, 'title'), { textContent: i ? turnName(i) : t('room.the-start') }));
  });
}

function refuseHints(refused) {
  analysis.hintsRefused = refused;
  $('engine-refused').hidden = !refused;
  $('engine-form').hidden = refused;
  $('review-panel').hidden = refused;
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
$('review-start').onclick = reviewLine;
$('review-stop').onclick = () => reviewer.stop();
$('review-graph').addEventListener('click', (event) => {
  const n = event.target.closest('[data-n]')?.dataset.n;
  if (n !== undefined && reviewing.done) showReviewed(Number(n));
});
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
  // Another game: the last one's analysis goes (a variation keeps it, to come back to).
  reviewer.stop();
  reviewing.done = null;
  delete $('review-panel').dataset.reviewed;
  $('review-progress').textContent = '';
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
