// The game page's connection (room-session.js) against a WebSocket made up here: what it
// says on entering and coming back, how long it waits, and when it stops for good.

import './english.js';
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';

import { openSession } from '../room-session.js';
import { FakeSocket } from './fake-socket.js';

const saved = {};
/** The delays of the reconnections scheduled, and the functions to run them. */
let timers;
let listeners;

beforeEach(() => {
  for (const name of ['WebSocket', 'location', 'addEventListener', 'setTimeout', 'clearTimeout']) saved[name] = globalThis[name];
  FakeSocket.made = [];
  timers = [];
  listeners = {};
  Object.assign(globalThis, {
    WebSocket: FakeSocket,
    location: { protocol: 'http:', host: 'punct.test' },
    addEventListener: (type, listener) => {
      listeners[type] = listener;
    },
    setTimeout: (run, ms) => timers.push({ run, ms }),
    clearTimeout: () => {},
  });
});

afterEach(() => Object.assign(globalThis, saved));

/** A session on room `r`, with the options the test gives; returns it with what it did. */
function open(options = {}) {
  const seen = { received: [], statuses: [], disconnected: 0, forgotten: 0 };
  let seq = null;
  const session = openSession({
    roomId: 'r',
    legalTurns: true,
    since: () => seq,
    seatToken: () => 'token',
    forgetToken: () => seen.forgotten++,
    accountSeat: () => false,
    receive: (message) => {
      seen.received.push(message);
      if (message.type === 'snapshot') seq = message.room.seq;
      else if ('seq' in message && message.type !== 'ack') seq = message.seq;
    },
    disconnected: () => seen.disconnected++,
    status: (state, text) => seen.statuses.push([state, text]),
    ...options,
  });
  return { session, seen, socket: () => FakeSocket.made.at(-1) };
}

/** Opens the current socket and lets the server welcome it. */
function welcome(socket) {
  socket.open();
  socket.receive({ type: 'welcome', id: socket.sent[0].id, version: 1 });
}

const snapshot = (seq) => ({ type: 'snapshot', id: 2, you: 'white', room: { seq } });

test('hello declines the lists of legal turns when the page has the engine', () => {
  const { socket } = open({ legalTurns: false });
  assert.equal(socket().url, 'ws://punct.test/ws');
  socket().open();
  assert.deepEqual(socket().sent, [{ type: 'hello', version: 1, legal_turns: false, id: 1 }]);

  const other = open();
  other.socket().open();
  assert.deepEqual(other.socket().sent, [{ type: 'hello', version: 1, id: 1 }]);
});

test('a page served over https connects with wss', () => {
  globalThis.location = { protocol: 'https:', host: 'punct.test' };
  const { socket } = open();
  assert.equal(socket().url, 'wss://punct.test/ws');
});

test('entering with the seat token, then coming back with `since`, ids never reused', () => {
  const { seen, socket } = open();
  welcome(socket());
  assert.deepEqual(socket().sent[1], { type: 'join', room: 'r', token: 'token', id: 2 });
  socket().receive(snapshot(4));
  socket().receive({ type: 'turn_played', seq: 5 });
  assert.deepEqual(seen.statuses.at(-1), ['online', 'online']);
  socket().close();
  assert.equal(seen.disconnected, 1);
  assert.deepEqual(seen.statuses.at(-1), ['offline', 'offline — reconnecting…']);
  timers.shift().run();
  assert.deepEqual(seen.statuses.at(-1), ['connecting', 'reconnecting…']);
  welcome(socket());
  assert.deepEqual(socket().sent, [
    { type: 'hello', version: 1, id: 3 },
    { type: 'join', room: 'r', token: 'token', since: 5, id: 4 },
  ]);
  // Welcome is the session's own business.
  assert.deepEqual(seen.received.map((m) => m.type), ['snapshot', 'turn_played']);
});

test('without a token: a join by account when it holds a seat, else watching', () => {
  const watching = open({ seatToken: () => null });
  welcome(watching.socket());
  assert.deepEqual(watching.socket().sent[1], { type: 'watch', room: 'r', id: 2 });

  const { seen, socket } = open({ seatToken: () => null, accountSeat: () => true });
  welcome(socket());
  assert.deepEqual(socket().sent[1], { type: 'join', room: 'r', id: 2 });
  // The account holds no seat after all: the page watches, and is not told.
  socket().receive({ type: 'error', id: 2, code: 'not-a-player', message: 'no seat' });
  assert.deepEqual(socket().sent[2], { type: 'watch', room: 'r', id: 3 });
  assert.deepEqual(seen.received, []);
});

test('a token that is no seat of the room is forgotten, and the page watches', () => {
  const { seen, socket } = open();
  welcome(socket());
  socket().receive({ type: 'error', id: 2, code: 'bad-token', message: 'not a seat token' });
  assert.equal(seen.forgotten, 1);
  assert.deepEqual(socket().sent[2], { type: 'watch', room: 'r', id: 3 });
  assert.equal(seen.received[0].code, 'bad-token', 'the page says so too');
});

test('waiting before coming back doubles up to 5 s, and starts again once back', () => {
  const { socket } = open();
  const delays = [];
  for (let i = 0; i < 7; i++) {
    socket().close();
    const timer = timers.shift();
    delays.push(timer.ms);
    timer.run();
  }
  assert.deepEqual(delays, [250, 500, 1000, 2000, 4000, 5000, 5000]);
  welcome(socket());
  socket().receive(snapshot(0));
  socket().close();
  assert.equal(timers.shift().ms, 250);
});

test('a room that does not exist, or a seat taken over, ends the session for good', () => {
  const gone = open();
  welcome(gone.socket());
  gone.socket().receive({ type: 'error', id: 2, code: 'no-such-room', message: 'no room' });
  assert.equal(gone.socket().readyState, FakeSocket.CLOSED);
  assert.equal(gone.session.stopped(), true);
  assert.equal(gone.seen.received[0].code, 'no-such-room');

  const taken = open();
  welcome(taken.socket());
  taken.socket().receive({ type: 'bye', code: 'seat-taken-over', message: 'taken over' });
  taken.socket().close();
  assert.deepEqual(taken.seen.statuses.at(-1), ['closed', 'closed: this seat was taken over by another window']);
  assert.equal(timers.length, 0, 'no reconnection');

  const left = open();
  left.session.stop();
  assert.equal(timers.length, 0);
  assert.equal(FakeSocket.made.length, 3);
});

test('kept in the back/forward cache: closed while hidden, back with `since` when shown', () => {
  const { socket } = open();
  welcome(socket());
  socket().receive(snapshot(7));
  listeners.pagehide();
  assert.equal(socket().readyState, FakeSocket.CLOSED);
  assert.equal(timers.length, 0, 'no reconnection while hidden');
  listeners.pageshow({ persisted: false });
  assert.equal(FakeSocket.made.length, 1, 'a page not from the cache was loaded afresh');
  listeners.pageshow({ persisted: true });
  assert.equal(FakeSocket.made.length, 2);
  welcome(socket());
  assert.equal(socket().sent[1].since, 7);
});

test('a socket let go of in the cache that closes after the page is back opens no other', () => {
  const { seen, session, socket } = open();
  welcome(socket());
  socket().receive(snapshot(7));
  const first = socket();
  // Its close is still under way when the page is shown again.
  first.close = function () {
    this.readyState = 2;
  };
  listeners.pagehide();
  assert.equal(seen.disconnected, 1, 'its requests have no answer coming');
  listeners.pageshow({ persisted: true });
  welcome(socket());
  assert.equal(socket().sent[1].since, 7);
  // The first socket's queued events arrive now: heard, its close would connect again
  // and take the seat from the second, and its `bye` would end the session.
  first.readyState = FakeSocket.CLOSED;
  first.onclose();
  first.receive({ type: 'bye', code: 'seat-taken-over', message: 'taken over' });
  assert.equal(FakeSocket.made.length, 2, 'no third socket');
  assert.equal(timers.length, 0, 'no reconnection');
  assert.equal(session.stopped(), false);
  assert.equal(seen.disconnected, 1);
  socket().receive(snapshot(8));
  assert.deepEqual(seen.statuses.at(-1), ['online', 'online']);
});

test('after a gap the session comes back at once', () => {
  const { session, socket } = open();
  welcome(socket());
  socket().receive(snapshot(3));
  session.resync();
  assert.equal(socket().readyState, FakeSocket.CLOSED);
  assert.equal(timers.shift().ms, 250);
});
