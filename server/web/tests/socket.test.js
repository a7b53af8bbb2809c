// The one WebSocket of the pages (socket.js) against a socket made up here: its address,
// `hello`, the ids, which socket's messages are heard, and when and how soon it connects
// again.

import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';

import { connect, retryDelay } from '../socket.js';
import { FakeSocket } from './fake-socket.js';

const saved = {};
/** The connections scheduled and not yet run or cancelled: their delays and functions. */
let timers;

beforeEach(() => {
  for (const name of ['WebSocket', 'location', 'setTimeout', 'clearTimeout']) saved[name] = globalThis[name];
  FakeSocket.made = [];
  timers = [];
  Object.assign(globalThis, {
    WebSocket: FakeSocket,
    location: { protocol: 'http:', host: 'punct.test' },
    setTimeout: (run, ms) => {
      const timer = { run, ms };
      timers.push(timer);
      return timer;
    },
    clearTimeout: (timer) => {
      timers = timers.filter((t) => t !== timer);
    },
  });
});

afterEach(() => Object.assign(globalThis, saved));

/** A connection that records what it is told; `again` is what `closed()` answers. */
function open(options = {}) {
  const seen = { received: [], openings: [], closed: 0 };
  const connection = connect({
    receive: (message) => seen.received.push(message),
    opening: (again) => seen.openings.push(again),
    closed: () => {
      seen.closed++;
      return options.again ?? true;
    },
    ...options,
  });
  return { connection, seen, socket: () => FakeSocket.made.at(-1) };
}

test('the wait before connecting again doubles from 250 ms up to 5 s', () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 20].map(retryDelay), [250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
});

test('it connects to /ws of the page’s host, wss under https', () => {
  assert.equal(open().socket().url, 'ws://punct.test/ws');
  globalThis.location = { protocol: 'https:', host: 'punct.test:8443' };
  assert.equal(open().socket().url, 'wss://punct.test:8443/ws');
});

test('hello carries the owner’s fields, and ids rise across sockets', () => {
  const { connection, socket } = open({ hello: { legal_turns: false } });
  socket().open();
  assert.deepEqual(socket().sent, [{ type: 'hello', version: 1, legal_turns: false, id: 1 }]);
  assert.equal(connection.send({ type: 'follow', tournament: 't' }), 2);
  assert.deepEqual(socket().sent[1], { type: 'follow', tournament: 't', id: 2 });
  socket().close();
  timers.shift().run();
  socket().open();
  assert.deepEqual(socket().sent, [{ type: 'hello', version: 1, legal_turns: false, id: 3 }]);
});

test('every message of the socket goes to the owner, parsed, welcome too', () => {
  const { seen, socket, connection } = open();
  assert.equal(connection.online(), false);
  socket().open();
  assert.equal(connection.online(), true);
  socket().receive({ type: 'welcome', id: 1, version: 1 });
  socket().receive({ type: 'tournament', tournament: { id: 't' } });
  assert.deepEqual(seen.received, [
    { type: 'welcome', id: 1, version: 1 },
    { type: 'tournament', tournament: { id: 't' } },
  ]);
});

test('a lost socket is followed by another, sooner again once settled', () => {
  const { connection, seen, socket } = open();
  const delays = [];
  for (let i = 0; i < 4; i++) {
    socket().close();
    const timer = timers.shift();
    delays.push(timer.ms);
    timer.run();
  }
  assert.deepEqual(delays, [250, 500, 1000, 2000]);
  assert.deepEqual(seen.openings, [false, true, true, true, true], 'told when it is a reconnection');
  assert.equal(seen.closed, 4);
  connection.settled();
  connection.drop();
  assert.equal(timers.shift().ms, 250, 'dropped as if lost: the owner is asked, and it connects again');
});

test('the owner decides whether a lost socket is followed by another', () => {
  const { seen, socket } = open({ again: false });
  socket().close();
  assert.equal(seen.closed, 1);
  assert.equal(timers.length, 0);
  assert.equal(FakeSocket.made.length, 1);
});

test('closed for good: the owner is told, and nothing connects again, even when due', () => {
  const waiting = open();
  waiting.socket().close();
  assert.equal(timers.length, 1);
  waiting.connection.close();
  assert.equal(timers.length, 0, 'the connection that was due is cancelled');

  const { connection, seen, socket } = open();
  connection.close();
  assert.equal(socket().readyState, FakeSocket.CLOSED);
  assert.equal(seen.closed, 1);
  assert.equal(timers.length, 0);
});

test('a socket let go of is not heard, and nothing connects until resumed', () => {
  const { connection, seen, socket } = open();
  const first = socket();
  first.open();
  // Its end is still under way when the connection resumes.
  first.close = function () {
    this.readyState = 2;
  };
  connection.suspend();
  assert.equal(connection.online(), false);
  assert.equal(timers.length, 0);
  connection.resume();
  assert.equal(FakeSocket.made.length, 2);
  assert.deepEqual(seen.openings, [false, false], 'resuming is connecting afresh');
  // The first socket's late events: none reaches the owner or the new socket.
  first.onopen();
  first.receive({ type: 'bye', code: 'seat-taken-over' });
  first.readyState = FakeSocket.CLOSED;
  first.onclose();
  assert.deepEqual(seen.received, []);
  assert.equal(seen.closed, 0);
  assert.equal(timers.length, 0);
  assert.deepEqual(first.sent, [{ type: 'hello', version: 1, id: 1 }]);
  assert.deepEqual(socket().sent, []);
});
