// The game page: plays or watches one room over the WebSocket protocol.
//
// Legality is decided by the server's own rules engine, run in the page (engine.js):
// the page finds the legal turns when it is the player's move, and a turn is sent only if
// it is among them; picking a piece and a destination filters that list, and a typed turn
// that is not in it is explained. The page then asks the server for no lists. Positions
// after each turn and for stepping back come from the engine too. Without the engine (a
// server built without it) the page takes the lists from the server (`legal_turns`) and
// the positions from `/api/rooms/{id}/position/{n}`.
//
// When the connection drops, the page reconnects with `since`, the last room event it
// saw: the server replays the events missed (`resumed`), or sends a fresh snapshot.
//
// A player joins with the seat token this browser keeps; a signed-in player whose account
// holds a seat joins without one, from any browser.

import { seatToken, takeSeat, api, displayName, setDisplayName } from './api.js';
import { mountAccount } from './account.js';
import { drawBoard, parseTurn, isDrop, kindOf, kindIcon, KINDS, piecesOf, chainView, cellTowards } from './board.js';
import { el, playerNode, ratingText, changeText, outcomeText, cap, timeLeftText, timeControlText } from './ui.js';
import { mountChat } from './chat.js';
import { loadEngine } from './engine.js';

const roomId = decodeURIComponent(location.pathname.split('/')[2] || '');
const $ = (id) => document.getElementById(id);
const svg = $('board');

/** The rules engine, or null: then the server sends the lists of legal turns. Loaded
 * beside the room's summary and the account, before the connection says `hello`. */
let engine = null;

/** Everything the page knows about the room, as the server told it. */
const room = {
  you: null,
  variant: 'standard',
  players: null,
  toMove: 'white',
  board: [],
  reserves: null,
  turns: [],
  /** How many turns `board` and `reserves` are after; they lag `turns` while fetched. */
  boardAfter: 0,
  legal: null,
  outcome: null,
  spectators: 0,
  drawOffer: null,
  /** The colour whose takeback request stands. */
  takebackOffer: null,
  /** Both clocks as last told (`ClockView`), in a game with a time control. */
  clock: null,
  /** When `clock` was received, by `performance.now()`: the running clock counts from it. */
  clockAt: 0,
  /** Per colour: when the opponent may claim the win while that player is away. */
  claimAt: {},
  /** After the game: the colour whose rematch request stands. */
  rematchOffer: null,
  /** The id of the rematch's room, once both players asked for it. */
  rematch: null,
  /** The `seq` of the last room event applied (or of the snapshot): `since` on reconnecting. */
  seq: null,
  /** Whether the game changes both players' ratings. */
  rated: false,
  /** Once a rated game is rated: per colour, the player's rating before and after. */
  ratings: null,
};

/** The username this page is signed in as, or null. */
let user = null;
/** Both seats as last told (or from the room's summary before the first snapshot): who
 * holds them decides whether this page joins without a token. */
let seats = null;
/** The `id` of the last `join` sent without a token: refused, the page watches instead. */
let accountJoin = null;

/** What the user is doing: a past position shown, a piece picked, a turn pending. */
const ui = {
  view: null,
  pick: null,
  dest: null,
  options: [],
  option: 0,
  pending: null,
  inspected: null,
  /** Whether the board is drawn turned half a turn; null: as the seat has it (Black's
   * side nearest). */
  flip: null,
  /** The cell the keyboard is on. */
  cursor: 'I9',
};

let socket = null;
let nextId = 1;
let retries = 0;
/** The reconnection waiting to be tried, if any. */
let reconnect = null;
/** Set while the page is kept in the back/forward cache: its socket is closed, so the
 * player shows as away while gone, and opened again when the page is shown. */
let parked = false;
/** Set when reconnecting would be wrong: the room is gone or another tab took the seat. */
let stopped = false;
/** Set once this page asked for a rematch (or saw its own request stand): the page then
 * follows the player into the rematch's room when it is made. */
let askedRematch = false;

/** The messages that are room events: they carry the room's next `seq`. (Presence
 * notices, such as `player_left` and `spectators`, have none.) */
const ROOM_EVENTS = new Set([
  'turn_played',
  'draw_offered',
  'draw_declined',
  'game_over',
  'rematch_offered',
  'rematch',
  'ratings',
  'takeback_offered',
  'takeback_declined',
  'taken_back',
]);

function send(message) {
  const id = nextId++;
  socket.send(JSON.stringify({ ...message, id }));
  return id;
}

/** Sends `message` when the page is in the room and online; returns its id, or null. */
function sendInRoom(message) {
  return socket?.readyState === WebSocket.OPEN && room.you ? send(message) : null;
}

const chat = mountChat(roomId, sendInRoom);

function setConnection(state, text) {
  const node = $('connection');
  node.dataset.state = state;
  node.textContent = text;
}

/** How long a notice stays (news that goes stale: a declined offer, the server going
 * away). */
const NOTICE_MS = 8000;
let noticeTimer = null;
/** Whether the message shown is a notice, which the next turn or reconnection clears. */
let noticed = false;

function say(text, kind = 'info') {
  clearTimeout(noticeTimer);
  noticed = false;
  const node = $('message');
  node.textContent = text;
  node.dataset.kind = kind;
}

/** Says `text` until it goes stale: for a while, and not past the next turn or coming
 * back online. */
function notice(text, kind = 'info') {
  say(text, kind);
  noticed = true;
  noticeTimer = setTimeout(clearNotice, NOTICE_MS);
}

function clearNotice() {
  if (noticed) say('');
}

function connect() {
  setConnection('connecting', retries ? 'reconnecting…' : 'connecting…');
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  socket = new WebSocket(`${scheme}://${location.host}/ws`);
  socket.onopen = () => send({ type: 'hello', version: 1, ...(engine ? { legal_turns: false } : {}) });
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = () => {
    ui.pending = null;
    chat.disconnected();
    if (stopped || parked) return;
    setConnection('offline', 'offline — reconnecting…');
    render();
    // Back off up to 5 s so a restarting server is not flooded.
    reconnect = setTimeout(connect, Math.min(5000, 250 * 2 ** retries++));
  };
}

addEventListener('pagehide', () => {
  if (stopped || !socket) return;
  parked = true;
  clearTimeout(reconnect);
  socket.close();
});
addEventListener('pageshow', (event) => {
  // Shown again from the back/forward cache: come back with the events missed.
  if (!event.persisted || !parked) return;
  parked = false;
  retries = 0;
  connect();
});

/** Whether the user may pick and place a piece now. */
function canPlay() {
  return (
    room.legal !== null &&
    ui.view === null &&
    ui.pending === null &&
    room.boardAfter === room.turns.length &&
    socket?.readyState === WebSocket.OPEN
  );
}

function myColor() {
  return room.you === 'white' || room.you === 'black' ? room.you : null;
}

function receive(message) {
  if (ROOM_EVENTS.has(message.type)) {
    // Never apply an event twice (the server sends no repeats; this is a safeguard).
    if (room.seq !== null && message.seq <= room.seq) return;
    room.seq = message.seq;
  }
  switch (message.type) {
    case 'welcome': {
      const token = seatToken(roomId);
      // Coming back: ask for the events missed since the last one seen.
      const since = room.seq === null ? {} : { since: room.seq };
      if (token) send({ type: 'join', room: roomId, token, ...since });
      else if (accountSeat()) accountJoin = send({ type: 'join', room: roomId, ...since });
      else send({ type: 'watch', room: roomId, ...since });
      break;
    }
    case 'snapshot':
      retries = 0;
      clearNotice();
      applySnapshot(message);
      break;
    case 'resumed':
      // The missed events follow as ordinary messages, in order; presence is as it is now.
      retries = 0;
      clearNotice();
      room.you = message.you;
      room.players = message.players;
      seats = message.players;
      room.spectators = message.spectators;
      chat.replace(message.chat);
      room.claimAt = {};
      for (const color of ['white', 'black']) setClaim(color, message.players[color].claim_in_ms);
      setConnection('online', 'online');
      break;
    case 'ack':
      // A line of chat or a mute leaves the game's controls alone.
      if (chat.acked(message.id)) break;
      ui.pending = null;
      clearPick();
      say('');
      break;
    case 'error':
      if (!chat.refused(message)) refused(message);
      break;
    case 'chat':
      chat.add(message);
      break;
    case 'turn_played':
      if (message.number === room.turns.length + 1) room.turns.push(message.turn);
      room.toMove = message.to_move;
      room.legal = null;
      findLegal();
      if (message.clock) setClock(message.clock);
      if (room.drawOffer === message.by) room.drawOffer = null;
      // A takeback request lapses with any turn.
      room.takebackOffer = null;
      clearPick();
      clearNotice();
      fetchPosition(message.number);
      break;
    case 'your_turn':
      room.legal = message.legal_turns;
      break;
    case 'game_over':
      room.outcome = message.outcome;
      room.legal = null;
      if (room.clock) setClock(stoppedClock({ ...room.clock, ...clockNow() }, message.outcome));
      room.drawOffer = null;
      room.takebackOffer = null;
      break;
    case 'draw_offered':
      room.drawOffer = message.by;
      break;
    case 'draw_declined':
      room.drawOffer = null;
      notice(`${cap(message.by)} declined the draw`);
      break;
    case 'takeback_offered':
      room.takebackOffer = message.by;
      break;
    case 'takeback_declined':
      room.takebackOffer = null;
      if (message.by !== myColor()) notice(`${cap(message.by)} declined the takeback`);
      break;
    case 'taken_back':
      // The game goes on from an earlier position: fetched, as after a turn.
      room.takebackOffer = null;
      room.turns = room.turns.slice(0, message.number);
      room.toMove = message.to_move;
      room.legal = null;
      findLegal();
      if (message.clock) setClock(message.clock);
      clearPick();
      ui.view = null;
      notice(`${cap(message.by)}'s last turn was taken back`);
      fetchPosition(message.number);
      break;
    case 'rematch_offered':
      room.rematchOffer = message.by;
      if (message.by === myColor()) askedRematch = true;
      break;
    case 'ratings':
      room.ratings = { white: message.white, black: message.black };
      break;
    case 'rematch':
      room.rematchOffer = null;
      room.rematch = message.room;
      // Both players asked: this page goes on in the new room.
      if (myColor()) askedRematch = true;
      break;
    case 'player_joined':
    case 'player_reconnected':
      room.players[message.color] = { ...room.players[message.color], taken: true, connected: true };
      delete room.claimAt[message.color];
      // The notice does not say who joined: the room's summary does.
      if (message.type === 'player_joined') refreshNames();
      break;
    case 'player_left':
      room.players[message.color].connected = false;
      setClaim(message.color, message.claim_in_ms);
      break;
    case 'spectators':
      room.spectators = message.count;
      break;
    case 'bye':
      if (message.code === 'seat-taken-over') {
        stopped = true;
        setConnection('closed', 'closed: this seat was taken over by another window');
      }
      notice(message.message);
      break;
    default:
      // A message type added to the protocol after this page: nothing to show yet.
      break;
  }
  render();
}

function applySnapshot({ you, room: snap }) {
  Object.assign(room, {
    you,
    variant: snap.variant,
    players: snap.players,
    toMove: snap.to_move,
    board: snap.board,
    reserves: snap.reserves,
    turns: snap.turns,
    boardAfter: snap.turns.length,
    legal: engine ? null : snap.legal_turns ?? null,
    outcome: snap.outcome ?? null,
    spectators: snap.spectators,
    drawOffer: snap.draw_offer ?? null,
    takebackOffer: snap.takeback_offer ?? null,
    claimAt: {},
    rematchOffer: snap.rematch_offer ?? null,
    rematch: snap.rematch ?? null,
    seq: snap.seq,
    rated: Boolean(snap.rated),
    ratings: snap.ratings ?? null,
  });
  seats = snap.players;
  chat.replace(snap.chat);
  if (room.rematchOffer && room.rematchOffer === myColor()) askedRematch = true;
  room.clock = null;
  if (snap.clock) setClock(snap.outcome ? stoppedClock(snap.clock, snap.outcome) : snap.clock);
  for (const color of ['white', 'black']) setClaim(color, snap.players[color].claim_in_ms);
  findLegal();
  clearPick();
  setConnection('online', 'online');
  if (you === 'spectator') offerSeat();
}

/** A clock once the game is over: stopped, and at zero for a player who lost on time
 * (the page's own count may be a moment behind the server's, which decides). */
function stoppedClock(clock, outcome) {
  const flagged = outcome.reason === 'time' ? { [`${outcome.winner === 'white' ? 'black' : 'white'}_ms`]: 0 } : {};
  return { ...clock, running: null, ...flagged };
}

function setClock(clock) {
  room.clock = clock;
  room.clockAt = performance.now();
}

/** Both clocks' milliseconds now: the running one counts down from when it was told. */
function clockNow() {
  const spent = performance.now() - room.clockAt;
  const left = (color) =>
    Math.max(0, room.clock[`${color}_ms`] - (room.clock.running === color ? spent : 0));
  return { white_ms: left('white'), black_ms: left('black') };
}

function setClaim(color, ms) {
  if (ms === undefined || ms === null) delete room.claimAt[color];
  else room.claimAt[color] = performance.now() + ms;
}

function formatClock(ms) {
  // A correspondence game's days read as days and hours.
  if (ms >= 3_600_000) return timeLeftText(ms);
  const seconds = Math.ceil(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** Redraws what changes with time alone: the clocks and the claim button. */
function tick() {
  for (const color of ['white', 'black']) {
    const node = $(`player-${color}`).querySelector('.clock');
    node.hidden = !room.clock;
    if (room.clock) {
      node.textContent = formatClock(clockNow()[`${color}_ms`]);
      node.classList.toggle('running', room.clock.running === color);
    }
  }
  const me = myColor();
  const opponent = me === 'white' ? 'black' : 'white';
  const claimAt = me && !room.outcome ? room.claimAt[opponent] : undefined;
  const claim = $('claim-win');
  claim.hidden = claimAt === undefined;
  if (claimAt !== undefined) {
    const wait = claimAt - performance.now();
    claim.disabled = wait > 0 || ui.pending !== null;
    claim.textContent = wait > 0 ? `Claim the win (in ${Math.ceil(wait / 1000)} s)` : 'Claim the win';
  }
}
setInterval(tick, 250);

function refused(message) {
  if (message.id !== undefined && message.id === ui.pending) ui.pending = null;
  if (message.id !== undefined && message.id === accountJoin) {
    // The account holds no seat here after all (or the session ended): watch.
    accountJoin = null;
    seats = null;
    send({ type: 'watch', room: roomId });
    return;
  }
  if (message.code === 'no-such-room') {
    stopped = true;
    socket.close();
    noSuchRoom();
    return;
  } else if (message.code === 'bad-token') {
    // The kept token is not a seat of this room (an old room id reused?): watch instead.
    localStorage.removeItem(`punct-seat:${roomId}`);
    send({ type: 'watch', room: roomId });
  }
  notice(`The server refused: ${message.message}`, 'error');
}

/** The room does not exist (or no longer does): the page says so instead of a board. */
function noSuchRoom() {
  setConnection('closed', 'no such room');
  $('no-room').hidden = false;
  document.querySelector('main').hidden = true;
}

/** The winning chain of the final position, asked of the engine once. */
let finalChain = { after: -1, chain: null };
function winningChain() {
  if (finalChain.after !== room.turns.length) {
    finalChain = { after: room.turns.length, chain: chainView(engine.position(room.variant, room.turns).chain) };
  }
  return finalChain.chain;
}

/** With the engine, the legal turns when it is this player's move (else none). */
function findLegal() {
  if (!engine) return;
  const mine = myColor() !== null && room.toMove === myColor() && !room.outcome;
  room.legal = mine ? engine.legal(room.variant, room.turns) : null;
}

/** The position after the first `n` turns: the engine's, or the server's. */
function positionAfter(n) {
  if (engine) return Promise.resolve(engine.position(room.variant, room.turns.slice(0, n)));
  return api('GET', `/api/rooms/${roomId}/position/${n}`);
}

async function fetchPosition(n) {
  const position = await positionAfter(n);
  // A later turn may have been played meanwhile: keep only the newest position.
  if (n === room.turns.length) {
    room.board = position.board;
    room.reserves = position.reserves;
    room.boardAfter = n;
    render();
  }
}

/** Whether the account this page is signed in as holds a seat of the room. */
function accountSeat() {
  return user !== null && seats !== null && ['white', 'black'].some((c) => seats[c].account === user);
}

/** Learns the names of the players from the room's summary. */
async function refreshNames() {
  const summary = await api('GET', `/api/rooms/${encodeURIComponent(roomId)}`).catch(() => null);
  if (!summary || !room.players) return;
  for (const color of ['white', 'black']) {
    const { name, account } = summary.players[color];
    room.players[color] = { ...room.players[color], name, account };
  }
  render();
}

async function offerSeat() {
  const summary = await api('GET', `/api/rooms/${encodeURIComponent(roomId)}`);
  $('seat-offer').hidden = summary.status !== 'open';
  // A rated game's seat is for a signed-in player only, who plays under their username.
  const barred = summary.rated && !user;
  $('seat-offer-text').textContent = barred
    ? 'A seat is free in this rated game: sign in to take it.'
    : 'A seat is free in this room.';
  $('take-seat').disabled = barred;
  $('seat-name').hidden = user !== null;
  $('seat-name-input').value = displayName();
}

$('seat-name-input').addEventListener('input', (event) => setDisplayName(event.target.value));

$('take-seat').onclick = async () => {
  try {
    await takeSeat(roomId, user !== null);
    location.reload();
  } catch (e) {
    say(e.message, 'error');
    // A name refused can be changed and tried again; any other refusal is final.
    if (e.code !== 'bad-name') $('seat-offer').hidden = true;
  }
};

// ---- picking and placing -------------------------------------------------------------

function legalTurns() {
  return (room.legal || []).map(parseTurn);
}

function clearPick() {
  ui.pick = null;
  ui.dest = null;
  ui.options = [];
  ui.option = 0;
}

/** The legal turns of the picked piece. */
function candidates() {
  if (!ui.pick) return [];
  return legalTurns().filter((t) =>
    ui.pick.kind ? isDrop(t) && kindOf(t) === ui.pick.kind : t.from === ui.pick.from,
  );
}

function pickKind(kind) {
  if (!canPlay()) return;
  clearPick();
  ui.pick = { kind };
  say(`${KINDS[kind]}: pick a lit cell for its PÜNCT`);
  render();
}

function clickCell(cell) {
  inspect(cell);
  ui.cursor = cell;
  if (!canPlay()) return;
  if (ui.dest === cell) {
    // The destination again turns the piece: only Play sends the turn.
    rotate();
    return;
  }
  if (ui.dest && ui.options.some((t) => t.minors.includes(cell))) {
    orient(cell);
    return;
  }
  if (ui.pick && candidates().some((t) => t.punct === cell)) {
    ui.dest = cell;
    ui.options = candidates().filter((t) => t.punct === cell);
    ui.option = 0;
    say(ui.options.length > 1 ? 'Click where a minor dot goes (or rotate), then Play' : 'Play it, or pick another cell');
    render();
    return;
  }
  const stack = room.board.find((s) => s.cell === cell);
  const top = stack?.dots[0];
  if (!top || top.color !== myColor()) {
    if (ui.pick) say('No legal turn puts the PÜNCT there', 'refused');
    return;
  }
  const piece = piecesOf(room.board).find((p) => p.key === `${top.color}-${top.piece}`);
  const from = piece.dots.find((d) => d.punct).cell;
  clearPick();
  if (legalTurns().some((t) => t.from === from)) {
    ui.pick = { from, cells: piece.dots.map((d) => d.cell) };
    say('Pick a lit cell for its PÜNCT');
  } else {
    say('That piece cannot move: it is covered, under a bridge, or has nowhere to go', 'refused');
  }
  render();
}

function rotate() {
  if (ui.options.length > 1) {
    ui.option = (ui.option + 1) % ui.options.length;
    render();
  }
}

/** Turns the piece at its destination so that a minor dot lies on `cell`: the next such
 * orientation after the one shown (a cell two orientations share takes two clicks). */
function orient(cell) {
  const count = ui.options.length;
  for (let i = 1; i <= count; i++) {
    const option = (ui.option + i) % count;
    if (ui.options[option].minors.includes(cell)) {
      ui.option = option;
      break;
    }
  }
  render();
}

function place() {
  if (ui.dest) sendTurn(ui.options[ui.option].text);
}

function sendTurn(text) {
  if (!canPlay()) return;
  // The list is the only judge: anything else is never sent.
  if (!room.legal.includes(text)) {
    say(`${text} is not a legal turn here${whyNot(text)}`, 'refused');
    return;
  }
  ui.pending = send({ type: 'play', turn: text });
  say(`Sent ${text}…`);
  render();
}

/** A typed turn in canonical notation: upper case, minor cells in column-then-row order. */
function canonical(input) {
  const text = input.trim().toUpperCase();
  const turn = parseTurn(text);
  if (turn.punct === null) return text === 'PASS' ? 'pass' : text;
  const order = (cell) => cell.charCodeAt(0) * 100 + Number(cell.slice(1));
  const minors = [...turn.minors].sort((a, b) => order(a) - order(b));
  return `${turn.from ? `${turn.from}-` : ''}${turn.punct}:${minors.join(',')}`;
}

/** What the engine finds wrong with a typed turn, as a sentence's end (or nothing). */
function whyNot(text) {
  if (!engine) return '';
  const { why } = engine.check(room.variant, room.turns, text);
  return why ? `: ${why}` : '';
}

// Typing offers the legal turns that start so (the input's list), and says whether the
// text is a legal turn and, when it is not, why.
const completions = document.createElement('datalist');
completions.id = 'notation-completions';
$('notation-form').append(completions);
$('notation').setAttribute('list', completions.id);
$('notation').addEventListener('input', (event) => {
  const text = event.target.value.trim().toUpperCase();
  const starting = text && room.legal ? room.legal.filter((t) => t.startsWith(text)) : [];
  completions.replaceChildren(
    ...starting.slice(0, 12).map((turn) => Object.assign(document.createElement('option'), { value: turn })),
  );
  if (!text || !room.legal) return;
  const typed = canonical(text);
  if (room.legal.includes(typed)) say(`${typed} is legal: Enter sends it`);
  else if (starting.length) say(`${starting.length} legal turn${starting.length === 1 ? '' : 's'} start${starting.length === 1 ? 's' : ''} so`);
  else if (engine && /:.+,./.test(text)) say(`${typed} is not legal${whyNot(typed)}`, 'refused');
  else say('No legal turn starts so', 'refused');
});

$('notation-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = $('notation');
  if (!canPlay()) {
    say('It is not your turn', 'refused');
    return;
  }
  sendTurn(canonical(input.value));
  if (ui.pending !== null) input.value = '';
});

$('rotate').onclick = rotate;
$('flip').onclick = () => {
  ui.flip = !flipped();
  render();
};
$('zoom').onclick = () => {
  const zoomed = $('board-box').classList.toggle('zoomed');
  $('zoom').setAttribute('aria-pressed', String(zoomed));
  $('zoom').textContent = zoomed ? 'Zoom out' : 'Zoom in';
};
$('pass').onclick = () => sendTurn('pass');
$('place').onclick = place;
$('cancel').onclick = () => {
  clearPick();
  say('');
  render();
};

svg.addEventListener('click', (event) => {
  const cell = event.target.closest('[data-cell]')?.dataset.cell;
  if (cell) clickCell(cell);
});
// On the board the arrow keys move from cell to cell and Enter or Space clicks one.
svg.addEventListener('keydown', (event) => {
  const cell = event.target.closest('[data-cell]')?.dataset.cell;
  if (!cell) return;
  if (event.key.startsWith('Arrow')) {
    const next = cellTowards(cell, event.key, flipped());
    if (next) {
      ui.cursor = next;
      inspect(next);
      render();
    }
  } else if (event.key === 'Enter' || event.key === ' ') {
    clickCell(cell);
  } else {
    return;
  }
  event.preventDefault();
  event.stopPropagation();
});
svg.addEventListener('pointerover', (event) => {
  const cell = event.target.closest('[data-cell]')?.dataset.cell;
  if (cell) inspect(cell);
});

document.addEventListener('keydown', (event) => {
  if (event.target.tagName === 'INPUT') return;
  if (event.key === 'r' || event.key === 'R') rotate();
  else if (event.key === 'Enter') place();
  else if (event.key === 'Escape') $('cancel').click();
  else if (event.key === 'ArrowLeft') step(-1);
  else if (event.key === 'ArrowRight') step(1);
});

// ---- resign and draws ---------------------------------------------------------------

function act(type, button) {
  if (socket?.readyState === WebSocket.OPEN) {
    ui.pending = send({ type });
    button.disabled = true;
  }
}

$('resign').onclick = (event) => {
  const button = event.target;
  // Two clicks, so a slip of the finger does not lose the game.
  if (button.dataset.confirm) act('resign', button);
  else {
    button.dataset.confirm = '1';
    button.textContent = 'Really resign?';
  }
};
$('offer-draw').onclick = (event) => act('offer_draw', event.target);
$('takeback').onclick = (event) => act('takeback', event.target);
$('accept-takeback').onclick = (event) => act('accept_takeback', event.target);
$('decline-takeback').onclick = (event) => act('decline_takeback', event.target);
$('cancel-room').onclick = async (event) => {
  const button = event.target;
  // Two clicks, as for resigning: the room and its link are gone for good.
  if (!button.dataset.confirm) {
    button.dataset.confirm = '1';
    button.textContent = 'Really cancel?';
    return;
  }
  const token = seatToken(roomId);
  try {
    await api('POST', `/api/rooms/${encodeURIComponent(roomId)}/cancel`, token ? { token } : {});
    stopped = true;
    socket?.close();
    location.assign('/');
  } catch (e) {
    notice(e.message, 'error');
  }
};
$('accept-draw').onclick = (event) => act('accept_draw', event.target);
$('decline-draw').onclick = (event) => act('decline_draw', event.target);
$('claim-win').onclick = (event) => act('claim_win', event.target);
$('rematch').onclick = (event) => {
  askedRematch = true;
  act('rematch', event.target);
};

// ---- the rematch ---------------------------------------------------------------------

/** Where the rematch is played. For a player, this browser's seat token of this room
 * holds the other colour there, so it is kept under the new room's id too. */
function rematchLink() {
  const token = seatToken(roomId);
  if (myColor() && token) localStorage.setItem(`punct-seat:${room.rematch}`, token);
  return `/room/${encodeURIComponent(room.rematch)}`;
}

/** Once the rematch is made: a player who asked for it from this page goes there. A
 * player opening the old room later stays, to look at the game, with a link. */
function followRematch() {
  if (room.rematch && myColor() && askedRematch && !stopped) {
    stopped = true;
    socket?.close();
    location.assign(rematchLink());
  }
}

function renderRematch() {
  const me = myColor();
  const panel = $('after-game');
  const status = $('rematch-status');
  const button = $('rematch');
  const link = $('rematch-link');
  panel.hidden = !room.outcome || !(me || room.rematchOffer || room.rematch);
  button.hidden = !me || room.rematch !== null;
  link.hidden = room.rematch === null;
  if (room.rematch) {
    status.textContent = me ? 'The rematch is ready, with colours swapped.' : 'The players started a rematch.';
    link.textContent = me ? 'Play the rematch' : 'Watch the rematch';
    link.href = `/room/${encodeURIComponent(room.rematch)}`;
  } else if (room.rematchOffer && room.rematchOffer === me) {
    status.textContent = 'You asked for a rematch; waiting for your opponent…';
  } else if (room.rematchOffer) {
    status.textContent = me ? 'Your opponent asks for a rematch.' : `${cap(room.rematchOffer)} asks for a rematch.`;
  } else {
    status.textContent = '';
  }
  button.textContent = room.rematchOffer && room.rematchOffer !== me ? 'Accept the rematch' : 'Rematch';
  button.disabled = ui.pending !== null || room.rematchOffer === me || socket?.readyState !== WebSocket.OPEN;
}

$('rematch-link').onclick = (event) => {
  // Keep the seat token for the new room before going there.
  event.currentTarget.href = rematchLink();
};

// ---- stepping through the game ------------------------------------------------------

async function view(n) {
  if (n >= room.turns.length) {
    ui.view = null;
    render();
    return;
  }
  const position = await positionAfter(Math.max(0, n));
  ui.view = { n: position.after, board: position.board, reserves: position.reserves };
  render();
}

function step(delta) {
  const at = ui.view ? ui.view.n : room.turns.length;
  view(at + delta);
}

$('live').onclick = () => view(room.turns.length);
$('back').onclick = () => step(-1);
$('forward').onclick = () => step(1);
$('turns').addEventListener('click', (event) => {
  const n = event.target.closest('[data-n]')?.dataset.n;
  if (n !== undefined) view(Number(n));
});

// ---- drawing --------------------------------------------------------------------------

function inspect(cell) {
  ui.inspected = cell;
  const board = ui.view ? ui.view.board : room.board;
  const stack = board.find((s) => s.cell === cell);
  const list = $('inspect').querySelector('ol');
  $('inspect').querySelector('small').textContent = stack ? `${cell}, top to bottom` : `${cell}: empty`;
  list.replaceChildren(
    ...(stack?.dots ?? []).map((dot) => {
      const li = document.createElement('li');
      li.className = `dot ${dot.color}`;
      li.textContent = `level ${dot.level}: ${dot.color} ${KINDS[dot.kind]}${dot.punct ? ' — PÜNCT' : ''}`;
      return li;
    }),
  );
}

/** The players' rating changes once a rated game is rated: "anna 1500? → 1662? (+162)". */
function renderRatings() {
  const panel = $('ratings');
  panel.hidden = !room.ratings;
  if (!room.ratings) return;
  for (const color of ['white', 'black']) {
    const { username, before, after } = room.ratings[color];
    panel.querySelector(`.change[data-color="${color}"]`).replaceChildren(
      playerNode({ account: username }),
      ` ${ratingText(before)} → ${ratingText(after)} `,
      el('span', { className: `diff ${after.rating >= before.rating ? 'up' : 'down'}` }, `(${changeText(before, after)})`),
    );
  }
}

/** Whether the board is drawn turned half a turn. */
function flipped() {
  return ui.flip ?? myColor() === 'black';
}

/** Turn `n` (from 1) as players count it: the move and who played it, `2. Black`. */
function turnName(n) {
  return `${Math.ceil(n / 2)}. ${n % 2 ? 'White' : 'Black'}`;
}

/** What to mark of the turn that led to the position shown: the PÜNCT's origin for a
 * move, and the cells the piece went to. */
function lastTurn(shown) {
  // (Just after a takeback the board shown may be ahead of the turns, until fetched.)
  const text = shown > 0 ? room.turns[shown - 1] : undefined;
  const turn = text === undefined ? null : parseTurn(text);
  return turn?.punct ? { from: turn.from, to: [turn.punct, ...turn.minors] } : null;
}

const TITLE = document.title;
/** Whether it was this player's move at the last render: the alert is for the change. */
let wasMyMove = false;
let audio = null;

function soundOn() {
  return localStorage.getItem('punct-sound') === 'on';
}

/** A short tone. The audio context is made (or resumed) on a click first: browsers keep
 * one made without a gesture silent. */
function beep() {
  if (!audio) return;
  const tone = audio.createOscillator();
  const gain = audio.createGain();
  tone.frequency.value = 880;
  gain.gain.setValueAtTime(0.2, audio.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.4);
  tone.connect(gain).connect(audio.destination);
  tone.start();
  tone.stop(audio.currentTime + 0.4);
}

function wakeAudio() {
  if (!soundOn()) return;
  audio ??= new AudioContext();
  audio.resume();
}

$('sound').checked = soundOn();
$('sound').addEventListener('change', (event) => {
  localStorage.setItem('punct-sound', event.target.checked ? 'on' : 'off');
  wakeAudio();
});
document.addEventListener('pointerdown', wakeAudio);
document.addEventListener('visibilitychange', () => {
  if (!document.hidden) document.title = TITLE;
});

/** When it becomes this player's move while the tab is hidden: says so in the tab's
 * title, and with a tone if the player asked for one. */
function alertMyMove() {
  const me = myColor();
  const seated = room.players.white.taken && room.players.black.taken;
  const myMove = Boolean(me && seated && !room.outcome && room.toMove === me);
  if (myMove && !wasMyMove && document.hidden) {
    document.title = `Your move — ${TITLE}`;
    if (soundOn()) beep();
  } else if (!myMove) {
    document.title = TITLE;
  }
  wasMyMove = myMove;
}

/** The link to this room, and the panel that offers it while the other seat is free. */
function renderInvite() {
  const me = myColor();
  const free = me && !room.players[me === 'white' ? 'black' : 'white'].taken;
  $('invite').hidden = !free || Boolean(room.outcome);
  $('invite-link').value = location.origin + location.pathname;
}

$('copy-link').onclick = async () => {
  try {
    await navigator.clipboard.writeText($('invite-link').value);
    $('copy-link').textContent = 'Copied';
  } catch {
    // No clipboard (an insecure origin): select the link for the player to copy.
    $('invite-link').select();
    $('copy-link').textContent = 'Press Ctrl+C';
  }
};

function render() {
  if (!room.players) return;
  const me = myColor();
  $('you').textContent = me ? `You play ${me}` : 'Watching';
  $('rated').hidden = !room.rated;
  $('spectators').querySelector('b').textContent = room.spectators;
  for (const color of ['white', 'black']) {
    const seat = room.players[color];
    const node = $(`player-${color}`);
    node.classList.toggle('to-move', !room.outcome && room.toMove === color);
    // The computer's seat says its level as its presence.
    node.querySelector('.who').replaceChildren(seat.taken && !seat.computer ? playerNode(seat) : '');
    node.querySelector('.presence').textContent = seat.computer
      ? `computer, level ${seat.computer}`
      : !seat.taken ? 'seat free' : seat.connected ? 'online' : 'away';
  }
  // Black's bar on top when the board shows Black's side nearest.
  $('players').classList.toggle('flipped', flipped());
  const myTurn = canPlay();
  $('turn-status').hidden = Boolean(room.outcome);
  $('turn-status').textContent = `${cap(room.toMove)} to move, move ${Math.floor(room.turns.length / 2) + 1}${myTurn ? ' — your move' : ''}`;
  const banner = $('banner');
  banner.hidden = !room.outcome;
  if (room.outcome) banner.textContent = outcomeText(room.outcome);

  const shown = ui.view ?? room;
  const shownAfter = ui.view ? ui.view.n : room.boardAfter;
  const picked = candidates();
  const ghostTurn = ui.dest ? ui.options[ui.option] : null;
  // The winning chain once the game is won on the board, and the final position shown
  // (found by the engine: a page without it shows none).
  const winner = room.outcome?.reason === 'connection' && !ui.view && room.boardAfter === room.turns.length;
  const chain = winner && engine ? winningChain() : null;
  drawBoard(svg, {
    board: shown.board,
    flip: flipped(),
    targets: ui.dest ? [] : picked.map((t) => t.punct),
    minors: ui.dest ? [...new Set(ui.options.flatMap((t) => t.minors))] : [],
    source: ui.pick?.cells ?? (ui.dest ? [ui.dest] : []),
    ghost: ghostTurn && { ...ghostTurn, color: me },
    last: lastTurn(shownAfter),
    chain,
    focus: ui.cursor,
  });
  Object.assign(svg.dataset, {
    turns: room.turns.length,
    shown: shownAfter,
    myTurn,
    pending: ui.pending !== null,
    ghost: ghostTurn ? ghostTurn.text : '',
    flipped: flipped(),
  });

  renderReserves(shown.reserves, myTurn ? new Set(legalTurns().filter(isDrop).map(kindOf)) : new Set());
  renderTurns();

  $('viewing').hidden = !ui.view;
  if (ui.view) $('viewing').querySelector('b').textContent = ui.view.n ? turnName(ui.view.n) : 'the start';
  const playing = me && !room.outcome;
  $('controls').hidden = !playing;
  $('actions').hidden = !playing;
  $('rotate').disabled = ui.options.length < 2;
  $('place').disabled = !ui.dest || !myTurn;
  $('cancel').disabled = !ui.pick;
  // Only when the server says passing is the turn to play (no other legal turn).
  $('pass').hidden = !(myTurn && room.legal.includes('pass'));
  $('offer-draw').disabled = room.drawOffer !== null || ui.pending !== null;
  $('resign').disabled = ui.pending !== null;
  $('draw-answer').hidden = !room.drawOffer || room.drawOffer === me || !playing;
  $('takeback-answer').hidden = !room.takebackOffer || room.takebackOffer === me || !playing;
  for (const id of ['accept-draw', 'decline-draw', 'accept-takeback', 'decline-takeback']) $(id).disabled = ui.pending !== null;
  // A player may ask once they have played a turn, while no request stands.
  const mine = me === 'white' ? Math.ceil(room.turns.length / 2) : Math.floor(room.turns.length / 2);
  $('takeback').disabled = mine === 0 || room.takebackOffer !== null || ui.pending !== null;
  $('takeback').textContent = room.takebackOffer === me ? 'Takeback asked…' : 'Ask to take back';
  $('record-link').href = `/api/rooms/${encodeURIComponent(roomId)}/record.txt`;
  // The analysis board needs the engine; it starts from the position shown.
  $('analysis-link').hidden = !engine;
  $('analysis-link').href = `/analysis?room=${encodeURIComponent(roomId)}&after=${shownAfter}`;
  renderInvite();
  renderRematch();
  renderRatings();
  chat.render({ you: room.you, over: Boolean(room.outcome), online: socket?.readyState === WebSocket.OPEN });
  if (ui.inspected) inspect(ui.inspected);
  tick();
  alertMyMove();
  followRematch();
}

function renderReserves(reserves, droppable) {
  if (!reserves) return;
  for (const color of ['white', 'black']) {
    const panel = $(`reserve-${color}`);
    const counts = reserves[color];
    panel.querySelector('small').textContent = `${Object.values(counts).reduce((a, b) => a + b, 0)} left`;
    panel.querySelector('.kinds').replaceChildren(
      ...Object.keys(KINDS).map((kind) => {
        const button = document.createElement('button');
        button.className = `kind ${color}`;
        button.dataset.kind = kind;
        button.title = KINDS[kind];
        button.setAttribute('aria-label', `${cap(color)}'s ${KINDS[kind]}: ${counts[kind]} left`);
        button.append(kindIcon(kind, color), ` ×${counts[kind]}`);
        button.disabled = color !== myColor() || !droppable.has(kind);
        button.classList.toggle('picked', ui.pick?.kind === kind && color === myColor());
        button.onclick = () => pickKind(kind);
        return button;
      }),
    );
  }
}

/** The turns two to a line, White's then Black's, numbered by moves as players count
 * them; each button shows the position after it. */
function renderTurns() {
  const list = $('turns');
  const shown = ui.view ? ui.view.n : room.turns.length;
  const moves = [];
  room.turns.forEach((turn, i) => {
    const color = i % 2 ? 'black' : 'white';
    if (color === 'white') moves.push(el('li'));
    moves.at(-1).append(
      el(
        'button',
        {
          type: 'button',
          className: `turn ${color}${i + 1 === shown ? ' current' : ''}`,
          dataset: { n: i + 1 },
          ariaLabel: `${turnName(i + 1)}: ${turn}`,
        },
        // A shape as well as a colour tells the sides apart.
        el('span', { className: 'side-mark', ariaHidden: 'true' }, color === 'white' ? '○' : '●'),
        el('span', { className: 'text' }, turn),
      ),
    );
  });
  list.replaceChildren(...moves);
  // Scroll the list only, never the page (scrollIntoView would move a phone's view).
  const current = list.querySelector('.current');
  if (current) list.scrollTop = current.offsetTop - list.clientHeight / 2;
}

// Who this page is signed in as, and who holds the seats, decide how it joins.
let missing = false;
[user, seats, engine] = await Promise.all([
  mountAccount($('account')),
  api('GET', `/api/rooms/${encodeURIComponent(roomId)}`)
    .then((summary) => {
      $('time-control').textContent = summary.clock ? timeControlText(summary.clock) : 'no clock';
      return summary.players;
    })
    .catch((e) => {
      missing = e.code === 'no-such-room';
      return null;
    }),
  loadEngine(),
]);
if (missing) noSuchRoom();
else connect();
