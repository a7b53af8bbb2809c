// The words of a result (ui.js `outcomeText`): a count of the centre says its numbers;
// the clock options of the forms (`clockOf`), a tournament's format (`formatText`) and a
// player's next game in one (`nextGame`).

import './english.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { clockOf, formatText, nextGame, outcomeText } from '../ui.js';

/** A board (a snapshot's) from cells and the colours of their dots, topmost first. */
function board(stacks) {
  return Object.entries(stacks).map(([cell, colors]) => ({ cell, dots: colors.map((color) => ({ color })) }));
}

// Black has I9 and H8 (over a white dot) in the centre, White J10; A2 is outside it.
const final = board({ I9: ['black'], H8: ['black', 'white'], J10: ['white'], A2: ['white'] });

test('a win by the count of the centre says how many visible dots each had there', () => {
  assert.equal(outcomeText({ result: 'win', winner: 'black', reason: 'centre' }, final), 'Black wins the centre count, 2 to 1');
});

test('a tie in the centre says the count too', () => {
  const tied = board({ I9: ['black'], J10: ['white'] });
  assert.equal(outcomeText({ result: 'draw', reason: 'centre-tie' }, tied), 'Draw: the centre count is 1 to 1');
});

test('other results, and a count without the board, keep their short form', () => {
  assert.equal(outcomeText({ result: 'win', winner: 'white', reason: 'connection' }, final), 'White wins (connection)');
  assert.equal(outcomeText({ result: 'win', winner: 'black', reason: 'centre' }), 'Black wins (centre)');
  assert.equal(outcomeText({ result: 'draw', reason: 'repetition' }), 'Draw (repetition)');
});

test('the clock options of the forms become the API\'s time controls', () => {
  assert.deepEqual(clockOf('300+3'), { base: 300, increment: 3 });
  assert.deepEqual(clockOf('1800+0'), { base: 1800, increment: 0 });
  assert.deepEqual(clockOf('3d'), { days: 3 });
  assert.equal(clockOf(''), undefined);
});

test('a tournament\'s format says a Swiss\'s rounds, one round singular', () => {
  assert.equal(formatText({ format: 'swiss', rounds: 5 }), 'Swiss, 5 rounds');
  assert.equal(formatText({ format: 'swiss', rounds: 1 }), 'Swiss, 1 round');
  assert.equal(formatText({ format: 'double-round-robin' }), 'double round robin');
});

test('a player\'s next game is their first not over, else their last round\'s', () => {
  const won = { result: 'win', winner: 'white', reason: 'resignation' };
  const view = {
    pairings: [
      { round: 1, games: [{ room: 'r1', white: 'anna', black: 'bert', outcome: won }, { white: 'cleo' }] },
      { round: 2, games: [{ room: 'r2', white: 'cleo', black: 'anna' }, { white: 'bert' }] },
      { round: 3, games: [{ room: 'r3', white: 'bert', black: 'cleo' }, { white: 'anna' }] },
    ],
  };
  // By correspondence every round is paired at once: anna's game of round 2 is next.
  assert.deepEqual(nextGame(view, 'anna'), { round: 2, game: view.pairings[1].games[0] });
  // Cleo's first game not over is also round 2's, before her game of round 3.
  assert.equal(nextGame(view, 'cleo').round, 2);
  // Bert's game of round 1 is over: his round 3 game, not his bye of round 2.
  assert.equal(nextGame(view, 'bert').round, 3);
  view.pairings[1].games[0].outcome = won;
  view.pairings[2].games[0].outcome = won;
  // Nothing left to play: the last round they are in (anna's bye).
  assert.deepEqual(nextGame(view, 'anna'), { round: 3, game: { white: 'anna' } });
  assert.equal(nextGame({ pairings: [] }, 'anna'), null);
});
