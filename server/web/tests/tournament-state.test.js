// What a tournament's page shows (tournament-state.js), worked out from views shaped as
// the server sends them (server/API.md, `GET /api/tournaments/{id}`; protocol/PROTOCOL.md,
// `tournament` and `tournament_round`): the line of its state, joining and withdrawing,
// the podium, "your next game", the standings and the rounds.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { liveGame, liveGames, nextGame, over, points, show, withRound } from '../tournament-state.js';

const HOUR = 3_600_000;
/** The time the tests look at the page. */
const NOW = 1_790_000_000_000;

const won = (winner) => ({ result: 'win', winner, reason: 'resignation' });
const drawn = { result: 'draw', reason: 'agreement' };

/** A tournament as `GET /api/tournaments/{id}` answers it, `changes` on top. */
function view(changes) {
  return {
    id: '0196f0c2-7d1e-7a40-9b5e-3c2d1e0f9a8b',
    name: 'Friday Swiss',
    format: 'swiss',
    variant: 'standard',
    clock: { base: 300, increment: 3 },
    rated: true,
    starts_at: NOW + HOUR,
    rounds: 5,
    min_players: 4,
    max_players: 64,
    creator: 'anna',
    state: 'upcoming',
    players: 0,
    round: 0,
    entries: [],
    standings: [],
    pairings: [],
    ...changes,
  };
}

/** A Swiss of five in its second round: bert withdrew after the first, emil has the
 * second round's bye, anna plays cleo (a game under way), dirk's game is over. */
const SWISS_ROUND_2 = view({
  state: 'running',
  starts_at: NOW - HOUR,
  players: 4,
  round: 2,
  entries: [{ player: 'anna' }, { player: 'bert', withdrawn: true }, { player: 'cleo' }, { player: 'dirk' }, { player: 'emil' }],
  standings: [
    { player: 'cleo', score: 1.5, buchholz: 1.0, sonneborn_berger: 0.75, games: 2 },
    { player: 'anna', score: 1.0, buchholz: 0.5, sonneborn_berger: 0.5, games: 1 },
    { player: 'emil', score: 1.0, buchholz: 0.0, sonneborn_berger: 0.0, games: 0 },
    { player: 'dirk', score: 0.5, buchholz: 2.0, sonneborn_berger: 0.25, games: 2 },
    { player: 'bert', score: 0.0, buchholz: 1.0, sonneborn_berger: 0.0, games: 1 },
  ],
  pairings: [
    {
      round: 1,
      games: [
        { room: '019ab0e3-0001', white: 'anna', black: 'bert', outcome: won('white') },
        { room: '019ab0e3-0002', white: 'cleo', black: 'dirk', outcome: drawn },
        { white: 'emil' },
      ],
    },
    {
      round: 2,
      games: [
        { room: '019ab0f1-0003', white: 'cleo', black: 'anna' },
        { room: '019ab0f1-0004', white: 'dirk', black: 'emil', outcome: won('black') },
      ],
    },
  ],
});

test('before the start: when it starts, who may join or withdraw, and the entries in order', () => {
  const upcoming = view({ players: 2, entries: [{ player: 'anna' }, { player: 'bert', withdrawn: true }, { player: 'cleo' }] });
  const shown = show(upcoming, 'anna', NOW);
  assert.deepEqual(shown.status, { key: 'tournament.starts-in', values: { when: NOW + HOUR, left: HOUR } });
  assert.deepEqual(shown.entry, { join: false, withdraw: 'tournament.withdraw' });
  assert.deepEqual(show(upcoming, 'dirk', NOW).entry, { join: true, withdraw: null });
  assert.equal(show(upcoming, 'bert', NOW).entry.join, true, 'one who withdrew may join again');
  assert.equal(show(upcoming, null, NOW).entry, null, 'nobody signed in: no buttons');
  // No standings yet: the players entered, as they joined, with nothing scored.
  assert.deepEqual(
    shown.standings.rows.map((row) => [row.place, row.player, row.score, row.games, row.me]),
    [
      [1, 'anna', '0', 0, true],
      [2, 'cleo', '0', 0, false],
    ],
  );
  assert.deepEqual(shown.next, { text: { key: 'tournament.next.starts-in', values: { left: HOUR } } });
  assert.equal(show(upcoming, 'dirk', NOW).next, null, 'not entered: no next game');
  assert.equal(shown.following, true);
  assert.deepEqual(shown.rounds, []);
  // Late, the countdown stops at nothing.
  assert.equal(show(upcoming, 'anna', NOW + 2 * HOUR).status.values.left, 0);
});

test('a running Swiss: its round of rounds, the standings with tie-breaks, a withdrawn player marked', () => {
  const shown = show(SWISS_ROUND_2, 'anna', NOW);
  assert.deepEqual(shown.status, { key: 'tournament.round-of-rounds', values: { round: 2, rounds: 5 } });
  assert.deepEqual(shown.standings.columns, ['tournament.place', 'tournament.player', 'tournament.score', 'tournament.buchholz', 'tournament.sonneborn-berger', 'tournament.games']);
  assert.deepEqual(shown.standings.rows[0], { place: 1, player: 'cleo', me: false, withdrawn: null, score: '1½', ties: ['1', '½'], games: 2 });
  assert.equal(shown.standings.rows[1].me, true);
  assert.deepEqual(shown.standings.rows[4], { place: 5, player: 'bert', me: false, withdrawn: 'tournament.withdrawn', score: '0', ties: ['1', '0'], games: 1 });
  // Entered and playing: the withdraw button alone, and the page is followed elsewhere.
  assert.deepEqual(shown.entry, { join: false, withdraw: 'tournament.withdraw' });
  assert.equal(show(SWISS_ROUND_2, 'bert', NOW).entry, null, 'withdrawn, once it runs: nothing to do');
  assert.equal(shown.following, true);
  const open = show(view({ state: 'running', round: 1, rounds: undefined, format: 'round-robin' }), null, NOW);
  assert.deepEqual(open.status, { key: 'tournament.round-of', values: { round: 1 } });
});

test('your next game: the game under way, a bye, or waiting for the round', () => {
  assert.deepEqual(show(SWISS_ROUND_2, 'anna', NOW).next, {
    text: { key: 'tournament.next.game', values: { round: 2, colour: 'black' } },
    opponent: 'cleo',
    room: '019ab0f1-0003',
  });
  assert.deepEqual(show(SWISS_ROUND_2, 'cleo', NOW).next.text.values.colour, 'white');
  // Dirk's game of the round is over: the next round is not paired yet.
  assert.deepEqual(show(SWISS_ROUND_2, 'dirk', NOW).next, { text: { key: 'tournament.next.waiting', values: {} } });
  const ended = { ...SWISS_ROUND_2.pairings[1], games: SWISS_ROUND_2.pairings[1].games.map((game) => ({ outcome: drawn, ...game })) };
  const bye = withRound(withRound(SWISS_ROUND_2, ended), { round: 3, games: [{ room: '019ab0f9-0005', white: 'anna', black: 'dirk' }, { white: 'cleo' }] });
  assert.deepEqual(show(bye, 'cleo', NOW).next, { text: { key: 'tournament.next.bye', values: { round: 3 } } });
  assert.equal(show(SWISS_ROUND_2, 'bert', NOW).next, null, 'withdrawn, with no game to play out');
  assert.equal(show(SWISS_ROUND_2, null, NOW).next, null);
});

test('the rounds come latest first, board by board, with their scores, byes and links', () => {
  const [second, first] = show(SWISS_ROUND_2, null, NOW).rounds;
  assert.equal(second.round, 2);
  assert.deepEqual(second.games[0], { board: 1, room: '019ab0f1-0003', white: 'cleo', black: 'anna', score: '', bye: false, live: true, link: 'tournament.game' });
  assert.deepEqual(second.games[1], { board: 2, room: '019ab0f1-0004', white: 'dirk', black: 'emil', score: '0–1', bye: false, live: false, link: 'games.replay' });
  assert.deepEqual(
    first.games.map((game) => [game.score, game.bye, game.link]),
    [
      ['1–0', false, 'games.replay'],
      ['½–½', false, 'games.replay'],
      ['', true, null],
    ],
  );
  assert.equal(first.resting, null);
});

test('a round robin of an odd number names who rests', () => {
  const robin = view({
    format: 'round-robin',
    rounds: undefined,
    state: 'running',
    round: 1,
    entries: [{ player: 'anna' }, { player: 'bert' }, { player: 'cleo' }],
    pairings: [{ round: 1, games: [{ room: '019ab0e3-0006', white: 'anna', black: 'bert' }], resting: 'cleo' }],
  });
  assert.equal(show(robin, null, NOW).rounds[0].resting, 'cleo');
});

test('an arena: its end, a pause for a withdrawal, points alone, and the pool between games', () => {
  const arena = view({
    name: 'Blitz arena',
    format: 'arena',
    rounds: undefined,
    state: 'running',
    starts_at: NOW - HOUR,
    ends_at: NOW + HOUR / 2,
    round: 2,
    entries: [{ player: 'anna' }, { player: 'bert', withdrawn: true }, { player: 'cleo' }],
    standings: [
      { player: 'anna', score: 4, games: 2 },
      { player: 'bert', score: 2, games: 2 },
      { player: 'cleo', score: 0, games: 1 },
    ],
    pairings: [
      { round: 1, games: [{ room: '019ab0e3-0007', white: 'anna', black: 'cleo', outcome: won('white') }] },
      { round: 2, games: [{ room: '019ab0e3-0008', white: 'bert', black: 'anna', outcome: won('black') }, { room: '019ab0e3-0009', white: 'cleo', black: 'bert' }] },
    ],
  });
  const shown = show(arena, 'anna', NOW);
  assert.deepEqual(shown.status, { key: 'tournament.ends-in', values: { when: NOW + HOUR / 2, left: HOUR / 2 } });
  assert.deepEqual(shown.entry, { join: false, withdraw: 'tournament.pause' });
  assert.deepEqual(shown.standings.columns, ['tournament.place', 'tournament.player', 'tournament.score', 'tournament.games']);
  assert.deepEqual(shown.standings.rows[1], { place: 2, player: 'bert', me: false, withdrawn: 'tournament.paused', score: '2', ties: null, games: 2 });
  assert.deepEqual(shown.next, { text: { key: 'tournament.next.pool', values: {} } });
  // Bert paused with a game under way: he may come back, and plays that game out.
  const bert = show(arena, 'bert', NOW);
  assert.deepEqual(bert.entry, { join: true, withdraw: null });
  assert.equal(bert.next.room, '019ab0e3-0009');
  assert.equal(bert.following, false);
});

test('finished: the podium, and a Swiss that ended before its last round says so', () => {
  const finished = {
    ...SWISS_ROUND_2,
    state: 'finished',
    pairings: SWISS_ROUND_2.pairings.map((round) => ({ ...round, games: round.games.map((game) => (game.outcome || !game.black ? game : { ...game, outcome: won('black') })) })),
  };
  const shown = show(finished, 'anna', NOW);
  assert.deepEqual(shown.status, { key: 'tournament.state.finished', values: {} });
  assert.deepEqual(shown.podium, { winner: 'cleo', places: ['cleo', 'anna', 'emil'], endedEarly: { round: 2, rounds: 5 } });
  assert.equal(show({ ...finished, rounds: 2 }, null, NOW).podium.endedEarly, null);
  assert.equal(shown.entry, null);
  assert.equal(shown.next, null);
  assert.equal(shown.following, false, 'nothing left to be called to');
  assert.equal(over(finished), true);
  assert.deepEqual(liveGames(finished), []);

  const cancelled = view({ state: 'cancelled', entries: [{ player: 'anna' }] });
  assert.deepEqual(show(cancelled, 'anna', NOW).status, { key: 'tournament.state.cancelled', values: {} });
  assert.equal(show(cancelled, 'anna', NOW).podium, null);
  assert.equal(show(SWISS_ROUND_2, null, NOW).podium, null);
});

test('a round just paired joins the rounds, and the tournament runs', () => {
  const upcoming = view({ entries: [{ player: 'anna' }, { player: 'bert' }] });
  const round = { round: 1, games: [{ room: '019ab0e3-0010', white: 'bert', black: 'anna' }] };
  const running = withRound(upcoming, round);
  assert.equal(running.state, 'running');
  assert.equal(running.round, 1);
  assert.deepEqual(running.pairings, [round]);
  // Told again (a follower that came back), it replaces itself; rounds stay in order.
  const again = withRound(withRound(SWISS_ROUND_2, { round: 3, games: [] }), SWISS_ROUND_2.pairings[0]);
  assert.deepEqual(again.pairings.map((r) => r.round), [1, 2, 3]);
  assert.equal(again.round, 3);
  assert.equal(upcoming.state, 'upcoming', 'the view it came from is left as it was');
});

test('a player\'s next game is their first not over, else their last round\'s', () => {
  const pairings = {
    pairings: [
      { round: 1, games: [{ room: 'r1', white: 'anna', black: 'bert', outcome: won('white') }, { white: 'cleo' }] },
      { round: 2, games: [{ room: 'r2', white: 'cleo', black: 'anna' }, { white: 'bert' }] },
      { round: 3, games: [{ room: 'r3', white: 'bert', black: 'cleo' }, { white: 'anna' }] },
    ],
  };
  // By correspondence every round is paired at once: anna's game of round 2 is next.
  assert.deepEqual(nextGame(pairings, 'anna'), { round: 2, game: pairings.pairings[1].games[0] });
  // Cleo's first game not over is also round 2's, before her game of round 3.
  assert.equal(nextGame(pairings, 'cleo').round, 2);
  // Bert's game of round 1 is over: his round 3 game, not his bye of round 2.
  assert.equal(nextGame(pairings, 'bert').round, 3);
  pairings.pairings[1].games[0].outcome = won('white');
  pairings.pairings[2].games[0].outcome = won('white');
  // Nothing left to play: the last round they are in (anna's bye).
  assert.deepEqual(nextGame(pairings, 'anna'), { round: 3, game: { white: 'anna' } });
  assert.equal(nextGame({ pairings: [] }, 'anna'), null);
});

test('scores are written with their halves', () => {
  assert.deepEqual([0, 0.5, 1, 2.5, 10].map(points), ['0', '½', '1', '2½', '10']);
});

test('the live games, and their clocks counted down since read', () => {
  assert.deepEqual(liveGames(SWISS_ROUND_2).map((game) => game.room), ['019ab0f1-0003']);
  const summary = { turns: 5, last_turn: 'C4:C5,D5', clocks: { white_ms: 200_000, black_ms: 150_000, running: 'black' } };
  assert.deepEqual(liveGame({ summary, at: NOW - 10_000 }, NOW), { move: 3, lastTurn: 'C4:C5,D5', clocks: { white: 200_000, black: 140_000 } });
  assert.deepEqual(liveGame({ summary: { turns: 0 }, at: NOW }, NOW), { move: 1, lastTurn: null, clocks: null });
  assert.equal(liveGame({ summary, at: NOW - 1_000_000 }, NOW).clocks.black, 0, 'never below nothing');
  const many = view({ state: 'running', pairings: [{ round: 1, games: Array.from({ length: 20 }, (_, i) => ({ room: `r${i}`, white: `w${i}`, black: `b${i}` })) }] });
  assert.equal(liveGames(many).length, 16, 'the first boards only');
});
