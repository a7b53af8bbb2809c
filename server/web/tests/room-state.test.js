// The rules of room-state.js taken one by one (protocol/PROTOCOL.md, "Coming back" and
// the room events), on small made-up messages.

import './english.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { CHAT_KEPT, apply, clockNow, follows, initial, myMove, stoppedClock, withNames } from '../room-state.js';

const seat = (extra = {}) => ({ taken: true, connected: true, ...extra });

function snapshot(room = {}, you = 'white', id = 2) {
  return {
    type: 'snapshot',
    ...(id === null ? {} : { id }),
    you,
    room: {
      room: 'r',
      seq: 0,
      variant: 'standard',
      players: { white: seat(), black: seat() },
      to_move: 'white',
      board: [],
      reserves: { white: {}, black: {} },
      turns: [],
      spectators: 0,
      ...room,
    },
  };
}

const turn = (seq, number, text, by) => ({
  type: 'turn_played',
  seq,
  turn: text,
  by,
  number,
  to_move: by === 'white' ? 'black' : 'white',
});

const T1 = turn(1, 1, 'B2:B1,B3', 'white');
const T2 = turn(2, 2, 'A3:A2,A4', 'black');
const T3 = turn(3, 3, 'B5:B4,B6', 'white');

function play(...messages) {
  return messages.reduce((state, m) => apply(state, m), initial());
}

test('an event whose seq is not after the last one seen is skipped, the same state returned', () => {
  const state = play(snapshot(), T1, T2);
  assert.equal(apply(state, T2), state, 'a duplicate');
  assert.equal(apply(state, T1), state, 'out of order');
  assert.equal(apply(state, { type: 'draw_offered', seq: 2, by: 'white' }), state, 'another type, same seq');
  assert.deepEqual(state.turns, ['B2:B1,B3', 'A3:A2,A4']);
  assert.equal(state.seq, 2);
});

test('an event after a gap is not applied: the state is behind until a snapshot', () => {
  const state = play(snapshot(), T1, T3);
  assert.equal(state.behind, true);
  assert.deepEqual(state.turns, ['B2:B1,B3']);
  assert.equal(state.seq, 1, 'since: the last event applied');
  // Later events wait too, even one that would follow the last applied.
  const waiting = apply(state, T2);
  assert.equal(waiting, state);
  // Presence is not a room event: it still counts.
  assert.equal(apply(state, { type: 'spectators', count: 3 }).spectators, 3);
  const fresh = apply(state, snapshot({ seq: 3, turns: ['B2:B1,B3', 'A3:A2,A4', 'B5:B4,B6'], to_move: 'black' }, 'white', null));
  assert.equal(fresh.behind, false);
  assert.equal(fresh.seq, 3);
  assert.deepEqual(fresh.turns, ['B2:B1,B3', 'A3:A2,A4', 'B5:B4,B6']);
});

test('`resumed` ends being behind: the missed events follow it', () => {
  const resumed = { type: 'resumed', id: 3, you: 'white', since: 1, players: { white: seat(), black: seat() }, spectators: 0 };
  const state = apply(play(snapshot(), T1, T3), resumed);
  assert.equal(state.behind, false);
  assert.equal(state.seq, 1);
  const caught = [T2, T3].reduce((s, m) => apply(s, m), state);
  assert.deepEqual(caught.turns, ['B2:B1,B3', 'A3:A2,A4', 'B5:B4,B6']);
  assert.equal(caught.seq, 3);
});

test('the first event of a later load of the room follows the last of the one before', () => {
  const load = 2 ** 32;
  assert.equal(follows(5, 6), true);
  assert.equal(follows(5, load + 1), true);
  assert.equal(follows(load, load + 1), true);
  assert.equal(follows(5, load + 2), false);
  assert.equal(follows(load + 3, load + 5), false);
  const state = play(snapshot({ seq: load }), { ...T1, seq: load + 1 });
  assert.equal(state.seq, load + 1);
  assert.deepEqual(state.turns, ['B2:B1,B3']);
});

test('a snapshot replaces everything the page knew of the room', () => {
  const before = play(
    snapshot(),
    T1,
    { type: 'draw_offered', seq: 2, by: 'white' },
    { type: 'chat', channel: 'players', color: 'white', text: 'hi', at: 1 },
    { type: 'draw_declined', seq: 3, by: 'black' },
  );
  assert.equal(before.notice.text, 'Black declined the draw');
  const after = apply(before, snapshot({ seq: 9, turns: [], chat: [], spectators: 4 }, 'spectator', null));
  assert.deepEqual(after.turns, []);
  assert.equal(after.you, 'spectator');
  assert.equal(after.drawOffer, null);
  assert.deepEqual(after.chat, []);
  assert.equal(after.notice, null);
  assert.equal(after.seq, 9);
  assert.equal(after.spectators, 4);
  assert.equal(after.boardAfter, 0);
});

test('a turn lapses the draw offer of the player who played it, and any takeback request', () => {
  const offered = play(snapshot(), { type: 'draw_offered', seq: 1, by: 'black' }, { type: 'takeback_offered', seq: 2, by: 'black' });
  const state = apply(offered, { ...T1, seq: 3 });
  assert.equal(state.drawOffer, 'black', "White's turn leaves Black's offer standing");
  assert.equal(state.takebackOffer, null);
  const lapsed = apply(play(snapshot(), { type: 'draw_offered', seq: 1, by: 'white' }), { ...T1, seq: 2 });
  assert.equal(lapsed.drawOffer, null);
});

test('a turn whose number does not extend the list changes the side to move, not the turns', () => {
  const state = play(snapshot({ turns: ['B2:B1,B3'], to_move: 'black', seq: 1 }), { ...T3, seq: 2 });
  assert.deepEqual(state.turns, ['B2:B1,B3']);
  assert.equal(state.toMove, 'black');
});

test('the legal turns come with `your_turn` and go with any turn or the end', () => {
  const mine = play(snapshot({ legal_turns: ['B2:B1,B3'] }));
  assert.deepEqual(mine.legal, ['B2:B1,B3']);
  assert.equal(myMove(mine), true);
  const waiting = apply(mine, T1);
  assert.equal(waiting.legal, null);
  assert.equal(myMove(waiting), false);
  const again = apply(apply(waiting, T2), { type: 'your_turn', seq: 2, legal_turns: ['pass'] });
  assert.deepEqual(again.legal, ['pass']);
  const over = apply(again, { type: 'game_over', seq: 3, outcome: { result: 'draw', reason: 'agreement' } });
  assert.equal(over.legal, null);
  assert.equal(myMove(over), false);
});

test('clocks: the running one counts from when it was told; the end stops it where it was', () => {
  const clock = { white_ms: 60_000, black_ms: 50_000, running: 'black', increment_ms: 0 };
  const state = apply(play(snapshot()), { ...T1, clock }, 1000);
  assert.deepEqual(clockNow(state, 3500), { white_ms: 60_000, black_ms: 47_500 });
  const over = apply(state, { type: 'game_over', seq: 2, outcome: { result: 'win', winner: 'black', reason: 'resignation' } }, 5000);
  assert.equal(over.clock.running, null);
  assert.deepEqual(clockNow(over, 99_000), { white_ms: 60_000, black_ms: 46_000 });
  // Lost on time: the loser's clock shows zero, whatever the page counted.
  assert.equal(stoppedClock(clock, { result: 'win', winner: 'black', reason: 'time' }).white_ms, 0);
  assert.equal(stoppedClock(clock, { result: 'win', winner: 'white', reason: 'time' }).black_ms, 0);
  // A snapshot of a finished game shows its clocks stopped.
  const finished = play(snapshot({ clock, outcome: { result: 'win', winner: 'white', reason: 'time' } }));
  assert.deepEqual(finished.clock, { ...clock, running: null, black_ms: 0 });
});

test('the claim deadline: set when a player leaves, gone when they come back', () => {
  const left = apply(play(snapshot()), { type: 'player_left', color: 'black', claim_in_ms: 120_000 }, 500);
  assert.deepEqual(left.claimAt, { black: 120_500 });
  assert.equal(left.players.black.connected, false);
  const back = apply(left, { type: 'player_reconnected', color: 'black' });
  assert.deepEqual(back.claimAt, {});
  assert.equal(back.players.black.connected, true);
  // After the game, leaving gives no deadline.
  assert.deepEqual(apply(back, { type: 'player_left', color: 'white' }).claimAt, {});
});

test('messages that are not the room’s business leave the state as it is', () => {
  const state = play(snapshot());
  for (const m of [
    { type: 'welcome', id: 1, version: 1 },
    { type: 'ack', id: 3, seq: 0 },
    { type: 'something_new', seq: 1 },
  ]) {
    assert.equal(apply(state, m), state, m.type);
  }
});

test('chat: lines are kept in order, at most CHAT_KEPT of them', () => {
  let state = play(snapshot());
  for (let i = 0; i < CHAT_KEPT + 5; i++) state = apply(state, { type: 'chat', channel: 'spectators', text: String(i), at: i });
  assert.equal(state.chat.length, CHAT_KEPT);
  assert.equal(state.chat[0].text, '5');
  assert.equal(state.chat.at(-1).text, String(CHAT_KEPT + 4));
});

test('the rematch: a player follows it when they asked on this page or saw it made', () => {
  const black = play(snapshot({ outcome: { result: 'draw', reason: 'agreement' } }, 'black'));
  assert.equal(apply(black, { type: 'rematch_offered', seq: 1, by: 'white' }).askedRematch, false);
  assert.equal(apply(black, { type: 'rematch_offered', seq: 1, by: 'black' }).askedRematch, true);
  assert.equal(apply(black, { type: 'rematch', seq: 1, room: 'n' }).askedRematch, true);
  // Opening the old room after the rematch was made: the page stays.
  const later = play(snapshot({ outcome: { result: 'draw', reason: 'agreement' }, rematch: 'n' }, 'black'));
  assert.equal(later.askedRematch, false);
  const spectator = play(snapshot({}, 'spectator'));
  assert.equal(apply(spectator, { type: 'rematch', seq: 1, room: 'n' }).askedRematch, false);
});

test('names from the room’s summary fill in who joined', () => {
  const state = play(snapshot({ players: { white: seat({ name: 'anna' }), black: { taken: false, connected: false } } }));
  const joined = apply(state, { type: 'player_joined', color: 'black' });
  const named = withNames(joined, { white: { name: 'anna' }, black: { name: 'bert', account: 'bert' } });
  assert.deepEqual(named.players.black, { taken: true, connected: true, name: 'bert', account: 'bert' });
  assert.equal(withNames(initial(), { white: {}, black: {} }).players, null);
});

test('chat_removed shows the numbered line as removed, in its place, and leaves the others', () => {
  let state = initial('r');
  for (const [id, text] of [[1, 'hello'], [2, 'rude'], [3, 'bye']]) {
    state = apply(state, { type: 'chat', channel: 'spectators', text, at: id, line: id });
  }
  state = apply(state, { type: 'chat_removed', line: 2 });
  assert.deepEqual(
    state.chat.map((line) => [line.line, line.text, Boolean(line.removed)]),
    [[1, 'hello', false], [2, '', true], [3, 'bye', false]],
  );
  assert.equal(apply(state, { type: 'chat_removed', line: 9 }).chat.length, 3, 'an unknown line changes nothing');
});
