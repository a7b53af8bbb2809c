// Replaying recorded message streams (fixtures/, made by record.py) through the game
// page's state, as the page would receive them.

import { readFileSync } from 'node:fs';

import { initial, apply, ROOM_EVENTS } from '../room-state.js';

const FIXTURES = new URL('./fixtures/', import.meta.url);

/** White links B1 to K17 in the 11th turn: the game record.py plays to the end. */
export const WHITE_CONNECTS = `B2:B1,B3 A3:A2,A4 B5:B4,B6 A6:A5,A7 B7:B8,B9 B10:C11,D12 C10:D11,E12
C1:D1,E1 F13:G14,H15 E13:F14,G15 I15:J16,K17`.split(/\s+/);

/** The messages one connection received in `scenario`: `client` is the file's name
 * without `.jsonl` (`black`, `black.2` for its second connection). */
export function stream(scenario, client) {
  const text = readFileSync(new URL(`${scenario}/${client}.jsonl`, FIXTURES), 'utf8');
  return text.split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line));
}

/** Each message spaced this far apart on the page's clock, in milliseconds. */
export const STEP = 100;

/**
 * Applies `messages` in order to `state` (a fresh one by default), the first at `start`
 * and each next one `STEP` later. Returns the final state and, for each message, the state
 * after it.
 */
export function replay(messages, state = initial(), start = 0) {
  const states = [];
  messages.forEach((message, i) => {
    state = apply(state, message, start + i * STEP);
    states.push(state);
  });
  return { state, states };
}

/** The connections of one client, replayed into one state as the page keeps it across
 * coming back. */
export function replayClient(scenario, ...connections) {
  let state = initial();
  let at = 0;
  for (const client of connections) {
    const messages = stream(scenario, client);
    state = replay(messages, state, at).state;
    at += messages.length * STEP;
  }
  return state;
}

/** The `seq` a page keeps after `messages`: the last room event's, or the snapshot's. */
export function lastSeq(messages) {
  let seq = null;
  for (const m of messages) {
    if (m.type === 'snapshot') seq = m.room.seq;
    else if (ROOM_EVENTS.has(m.type)) seq = m.seq;
  }
  return seq;
}

/** The messages of `type` in `messages`. */
export function ofType(messages, type) {
  return messages.filter((m) => m.type === type);
}
