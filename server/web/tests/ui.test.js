// The words of a result (ui.js `outcomeText`): a count of the centre says its numbers;
// the clock options of the forms (`clockOf`) and a tournament's format (`formatText`).

import './english.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { clockOf, formatText, outcomeText } from '../ui.js';

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
