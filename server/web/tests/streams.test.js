// The game page's state after the message streams of real games (fixtures/, recorded from
// the server by record.py): what each player and spectator would be shown.

import './english.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { apply, clockNow, initial, myColor, withPosition } from '../room-state.js';
import { STEP, WHITE_CONNECTS, lastSeq, ofType, replay, replayClient, stream } from './replay.js';

const COLORS = ['white', 'black'];

test('a full game to a win by connection: every member sees each turn, then the result', () => {
  for (const [client, you] of [['white', 'white'], ['black', 'black'], ['watcher', 'spectator']]) {
    const messages = stream('connection-win', client);
    const { state, states } = replay(messages);
    assert.equal(state.you, you);
    assert.deepEqual(state.turns, WHITE_CONNECTS, client);
    assert.deepEqual(state.outcome, { result: 'win', winner: 'white', reason: 'connection' });
    assert.equal(state.seq, lastSeq(messages));
    assert.equal(state.legal, null, 'nobody moves once the game is over');
    assert.equal(state.notice, null);
    for (const color of COLORS) assert.equal(state.players[color].taken, true);
    // After each turn, the side to move and the turns as the event says.
    messages.forEach((m, i) => {
      if (m.type !== 'turn_played') return;
      assert.equal(states[i].turns.length, m.number);
      assert.equal(states[i].turns.at(-1), m.turn);
      assert.equal(states[i].toMove, m.to_move);
      assert.equal(states[i].seq, m.seq);
    });
  }
});

test('the board lags the turns until the position after the last one is found', () => {
  const { state } = replay(stream('connection-win', 'watcher'));
  assert.equal(state.boardAfter, 0);
  const position = { after: 11, board: [{ cell: 'K17', dots: [] }], reserves: { white: {}, black: {} } };
  // A position found for an earlier turn, answered late, is not shown.
  assert.equal(withPosition(state, 10, position), state);
  const found = withPosition(state, 11, position);
  assert.equal(found.boardAfter, 11);
  assert.deepEqual(found.board, position.board);
});

test('a draw offer declined, one lapsing with its offerer’s turn, one accepted', () => {
  const messages = stream('draws', 'white');
  const { state, states } = replay(messages);
  const after = (type, n = 0) => states[messages.indexOf(ofType(messages, type)[n])];
  assert.equal(after('draw_offered').drawOffer, 'white');
  assert.equal(after('draw_declined').drawOffer, null);
  assert.equal(after('draw_declined').notice.text, 'Black declined the draw');
  assert.equal(after('draw_offered', 1).drawOffer, 'white');
  // White played: the offer lapsed silently.
  const turn = messages.findIndex((m) => m.type === 'turn_played' && m.by === 'white' && m.number === 3);
  assert.equal(states[turn].drawOffer, null);
  assert.equal(after('draw_offered', 2).drawOffer, 'black');
  assert.deepEqual(state.outcome, { result: 'draw', reason: 'agreement' });
  assert.equal(state.drawOffer, null);
  assert.equal(state.seq, lastSeq(messages));
  // Refusals show as notices.
  assert.equal(after('error').notice.kind, 'error');
  assert.match(after('error').notice.text, /^The server refused: /);
});

test('a player who takes the server’s lists may play after `your_turn`, not after their own turn', () => {
  const messages = stream('draws', 'black');
  const { state, states } = replay(messages);
  messages.forEach((m, i) => {
    if (m.type === 'your_turn') assert.deepEqual(states[i].legal, m.legal_turns);
    if (m.type === 'turn_played') assert.equal(states[i].legal, null);
  });
  assert.ok(ofType(messages, 'your_turn').length >= 2);
  assert.equal(state.legal, null);
  assert.equal(state.notice.text, 'The server refused: the game is over');
});

test('takebacks: declined, then accepted from the asker’s move and from the opponent’s', () => {
  const white = stream('takebacks', 'white');
  const { state, states } = replay(white);
  const at = (type, n = 0) => states[white.indexOf(ofType(white, type)[n])];
  assert.equal(at('takeback_offered').takebackOffer, 'white');
  assert.equal(at('takeback_declined').takebackOffer, null);
  assert.equal(at('takeback_declined').notice.text, 'Black declined the takeback');
  // White, to move, asked: White's turn and Black's reply are gone.
  assert.deepEqual(at('taken_back').turns, []);
  assert.equal(at('taken_back').toMove, 'white');
  assert.equal(at('taken_back').notice.text, "White's last turn was taken back");
  // Black asked while White was to move: Black's turn alone is gone.
  assert.equal(at('takeback_offered', 2).takebackOffer, 'black');
  assert.deepEqual(at('taken_back', 1).turns, WHITE_CONNECTS.slice(0, 1));
  assert.equal(at('taken_back', 1).toMove, 'black');
  assert.deepEqual(state.turns, WHITE_CONNECTS.slice(0, 3));
  assert.equal(state.takebackOffer, null);
  assert.equal(state.seq, lastSeq(white));

  // The player who declined is not told what they did; the others are.
  const black = stream('takebacks', 'black');
  const declined = black.findIndex((m) => m.type === 'takeback_declined');
  const { states: blacks } = replay(black);
  assert.equal(blacks[declined].notice, blacks[declined - 1].notice);
  const watcher = stream('takebacks', 'watcher');
  const seen = watcher.findIndex((m) => m.type === 'takeback_declined');
  assert.equal(replay(watcher.slice(0, seen + 1)).state.notice.text, 'Black declined the takeback');
  assert.deepEqual(replay(watcher).state.turns, WHITE_CONNECTS.slice(0, 3));
});

test('a timed game: the clocks as each turn tells them, running down, then Black’s flag', () => {
  for (const client of ['white', 'black', 'watcher']) {
    const messages = stream('clocks', client);
    const { state, states } = replay(messages);
    // Before White's first turn the clocks stand.
    const start = states[1];
    assert.equal(start.clock.running, undefined);
    assert.deepEqual(clockNow(start, start.clockAt + 5000), { white_ms: start.clock.white_ms, black_ms: start.clock.black_ms });
    messages.forEach((m, i) => {
      if (m.type !== 'turn_played') return;
      const s = states[i];
      assert.deepEqual(s.clock, m.clock);
      // The running clock counts down from when it was told; the other stands.
      const later = clockNow(s, s.clockAt + 1500);
      const running = m.clock.running;
      const other = running === 'white' ? 'black' : 'white';
      assert.equal(later[`${running}_ms`], Math.max(0, m.clock[`${running}_ms`] - 1500));
      assert.equal(later[`${other}_ms`], m.clock[`${other}_ms`]);
      assert.equal(clockNow(s, s.clockAt + 1e9)[`${running}_ms`], 0, 'never below zero');
    });
    assert.deepEqual(state.outcome, { result: 'win', winner: 'white', reason: 'time' });
    const told = ofType(messages, 'turn_played').at(-1).clock;
    assert.equal(state.clock.running, null, 'stopped');
    assert.equal(state.clock.black_ms, 0, 'the loser’s flag fell');
    assert.equal(state.clock.white_ms, told.white_ms);
  }
});

test('a rated game resigned, its ratings, and a rematch both players asked for', () => {
  const ends = {};
  for (const client of ['white', 'black', 'watcher']) {
    const messages = stream('resign-rematch', client);
    const { state, states } = replay(messages);
    ends[client] = state;
    assert.equal(state.rated, true);
    assert.deepEqual(state.outcome, { result: 'win', winner: 'white', reason: 'resignation' });
    const ratings = ofType(messages, 'ratings')[0];
    assert.deepEqual(state.ratings, { white: ratings.white, black: ratings.black });
    assert.equal(state.ratings.white.username, 'anna');
    const offered = messages.findIndex((m) => m.type === 'rematch_offered');
    assert.equal(states[offered].rematchOffer, 'white');
    assert.equal(state.rematchOffer, null);
    assert.equal(state.rematch, ofType(messages, 'rematch')[0].room);
    assert.equal(state.seq, lastSeq(messages));
  }
  // Players' pages follow into the rematch; a spectator's stays.
  assert.equal(ends.white.askedRematch, true);
  assert.equal(ends.black.askedRematch, true);
  assert.equal(ends.watcher.askedRematch, false);
  // Before the rematch was made, only White had asked.
  const black = stream('resign-rematch', 'black');
  const made = black.findIndex((m) => m.type === 'rematch');
  assert.equal(replay(black.slice(0, made)).state.askedRematch, false);
  const white = stream('resign-rematch', 'white');
  const offered = white.findIndex((m) => m.type === 'rematch_offered');
  assert.equal(replay(white.slice(0, offered + 1)).state.askedRematch, true);
});

test('chat: each member has the lines of the channels they hear', () => {
  const texts = (client) => replayClient('chat', client).chat.map((l) => l.text);
  assert.deepEqual(texts('white'), ['good luck!', 'you too', 'muted?', 'well played', 'thanks']);
  // Black muted White for a while: the server did not send White's line meanwhile.
  assert.deepEqual(texts('black'), ['good luck!', 'you too', 'well played', 'thanks']);
  // Spectators never hear the players' channel.
  assert.deepEqual(texts('watcher'), ['go white', 'well played']);
  // Coming in later: the snapshot holds the lines the newcomer hears.
  assert.deepEqual(texts('late'), ['go white', 'well played']);
  const line = replayClient('chat', 'white').chat[0];
  assert.equal(line.type, undefined, 'lines are kept without the message type');
  assert.equal(line.channel, 'players');
  assert.equal(line.name, 'Clara');
  assert.equal(line.color, 'white');
});

test('presence: joining, spectators, leaving with the claim’s countdown, coming back', () => {
  const messages = stream('presence', 'watcher');
  const { state, states } = replay(messages);
  const first = states[1];
  assert.equal(first.players.white.connected, false, 'White had not come yet');
  assert.equal(first.players.black.taken, false);
  assert.equal(typeof first.claimAt.white, 'number', 'an absent seat may be claimed against');
  const joined = messages.findIndex((m) => m.type === 'player_joined' && m.color === 'black');
  assert.equal(states[joined].players.black.taken, true);
  assert.equal(states[joined].players.black.connected, true);
  const two = messages.findIndex((m) => m.type === 'spectators' && m.count === 2);
  assert.equal(states[two].spectators, 2);
  const left = messages.findIndex((m) => m.type === 'player_left' && m.color === 'black');
  assert.equal(states[left].players.black.connected, false);
  assert.equal(states[left].claimAt.black, left * STEP + messages[left].claim_in_ms);
  const back = messages.findIndex((m) => m.type === 'player_reconnected' && m.color === 'black');
  assert.equal(states[back].players.black.connected, true);
  assert.equal(states[back].claimAt.black, undefined);
  assert.equal(state.spectators, 1);
  // Presence carries no seq: the last room event's stands.
  assert.equal(state.seq, lastSeq(messages));
});

test('a seat taken over by another connection: `bye`, and the new connection’s snapshot', () => {
  const { state } = replay(stream('presence', 'white'));
  assert.equal(state.bye, 'seat-taken-over');
  assert.equal(state.notice.text, 'another connection took over this seat with its token');
  const taken = replayClient('presence', 'white.2');
  assert.equal(taken.you, 'white');
  assert.deepEqual(taken.turns, WHITE_CONNECTS.slice(0, 1));
  assert.equal(taken.bye, null);
});

test('coming back with `since`: `resumed`, then exactly the events missed', () => {
  const first = stream('reconnect', 'black');
  const again = stream('reconnect', 'black.2');
  const resumed = again.find((m) => m.type === 'resumed');
  assert.equal(resumed.since, lastSeq(first), 'the page asks from the last event it saw');
  const before = replay(first).state;
  const { state, states } = replay(again, before);
  const at = again.indexOf(resumed);
  assert.deepEqual(states[at].turns, before.turns, 'resumed alone changes no turn');
  assert.equal(states[at].players.white.connected, true);
  // The missed turn and draw offer, then the player's lists.
  const offered = again.findIndex((m) => m.type === 'draw_offered');
  assert.deepEqual(states[offered].turns, WHITE_CONNECTS.slice(0, 3));
  assert.equal(states[offered].drawOffer, 'white');
  const yours = again.findIndex((m) => m.type === 'your_turn');
  assert.ok(states[yours].legal.includes(WHITE_CONNECTS[3]));
  assert.deepEqual(state.turns, WHITE_CONNECTS.slice(0, 4));
  assert.equal(state.drawOffer, null);
  assert.equal(state.seq, lastSeq(again));

  // The spectator too, and the turns agree with the player's.
  const watcher = replayClient('reconnect', 'watcher', 'watcher.2');
  assert.deepEqual(watcher.turns, state.turns);
  assert.equal(watcher.seq, state.seq);
  assert.equal(watcher.notice, null, 'coming back clears stale news');
});

test('a stream replayed twice changes nothing the second time', () => {
  const watcher = [...stream('reconnect', 'watcher'), ...stream('reconnect', 'watcher.2')];
  const once = replay(watcher).state;
  const events = watcher.filter((m) => 'seq' in m && m.type !== 'ack');
  assert.equal(replay(events, once).state.turns, once.turns);
  assert.equal(replay(events, once).state.seq, once.seq);
});

test('a `since` the room has not reached: a snapshot with the room as it is', () => {
  const { state } = replay(stream('reconnect', 'ahead'));
  const snapshot = stream('reconnect', 'ahead').find((m) => m.type === 'snapshot');
  assert.deepEqual(state.turns, WHITE_CONNECTS.slice(0, 4));
  assert.equal(state.seq, snapshot.room.seq);
});

test('falling behind: a fresh snapshot without id replaces what was missed', () => {
  const messages = stream('behind', 'watcher');
  const fresh = messages.findIndex((m) => m.type === 'snapshot' && m.id === undefined);
  assert.ok(fresh > 0, 'the recording has a snapshot without id');
  const { state, states } = replay(messages);
  assert.ok(states[fresh - 1].turns.length < WHITE_CONNECTS.length, 'events were missed');
  assert.deepEqual(states[fresh].turns, WHITE_CONNECTS);
  assert.deepEqual(state.outcome, { result: 'win', winner: 'white', reason: 'connection' });
  assert.equal(state.seq, messages[fresh].room.seq);
  assert.equal(state.boardAfter, WHITE_CONNECTS.length, 'a snapshot has the board of its turns');

  // Coming back after more events than the room keeps: a snapshot, with id.
  const late = replayClient('behind', 'late', 'late.2');
  assert.deepEqual(late.turns, WHITE_CONNECTS);
  assert.deepEqual(late.outcome, state.outcome);
});

test('a gap in a real stream: the events after it wait for the snapshot', () => {
  const messages = stream('connection-win', 'watcher');
  const dropped = messages.findIndex((m) => m.type === 'turn_played' && m.number === 5);
  const { state } = replay(messages.filter((_, i) => i !== dropped));
  assert.equal(state.behind, true);
  assert.deepEqual(state.turns, WHITE_CONNECTS.slice(0, 4), 'nothing after the gap is applied');
  assert.equal(state.seq, messages[dropped].seq - 1);
  assert.equal(state.outcome, null);
  // The snapshot the page gets on coming back puts it right.
  const snapshot = stream('behind', 'watcher').find((m) => m.type === 'snapshot' && m.id === undefined);
  const fixed = apply(state, snapshot);
  assert.equal(fixed.behind, false);
  assert.deepEqual(fixed.turns, WHITE_CONNECTS);
});

test('claiming the win against a player who stayed away', () => {
  const messages = stream('claim', 'white');
  const { state, states } = replay(messages);
  const left = messages.findIndex((m) => m.type === 'player_left');
  assert.equal(states[left].claimAt.black, left * STEP + messages[left].claim_in_ms);
  assert.deepEqual(state.outcome, { result: 'win', winner: 'white', reason: 'abandonment' });
});

test('error replies: refusals are news; a room that does not exist ends the page', () => {
  const messages = stream('errors', 'white');
  const { states } = replay(messages);
  const at = (code) => states[messages.findIndex((m) => m.code === code)];
  for (const code of ['hello-required', 'duplicate-hello', 'malformed', 'not-joined', 'bad-token', 'bad-notation', 'illegal-turn']) {
    const message = messages.find((m) => m.code === code);
    assert.deepEqual(at(code).notice, { text: `The server refused: ${message.message}`, kind: 'error' }, code);
  }
  assert.equal(at('no-such-room').gone, true);
  assert.equal(at('malformed').gone, false);
  // A refusal changes nothing else: the game stands as it was.
  const black = stream('errors', 'black');
  const refused = replay(black).state;
  assert.deepEqual(refused.turns, []);
  assert.equal(refused.toMove, 'white');
  assert.equal(refused.notice.text, `The server refused: ${black.find((m) => m.code === 'not-your-turn').message}`);
  const watcher = replay(stream('errors', 'watcher')).state;
  assert.equal(watcher.you, 'spectator');
  assert.equal(myColor(watcher), null);
  const refusal = stream('errors', 'watcher').findLast((m) => m.code === 'not-a-player');
  assert.equal(watcher.notice.text, `The server refused: ${refusal.message}`);
  assert.equal(initial().notice, null);
});
