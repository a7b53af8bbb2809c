// The board from the keyboard (room-input.js `boardKey`, board.js `nearestCell`): Enter
// plays the turn shown and never turns it, Space turns it on its PÜNCT's cell, and a
// pick sends the cursor to the nearest lit cell.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { boardKey, newUi } from '../room-input.js';
import { nearestCell, parseTurn } from '../board.js';

/** A page's `ui` with a straight piece's PÜNCT chosen on I9, in two orientations. */
function chosen() {
  const ui = newUi();
  ui.pick = { kind: 'straight-middle' };
  ui.dest = 'I9';
  ui.options = ['I9:H9,J9', 'I9:I8,I10'].map(parseTurn);
  ui.option = 0;
  return ui;
}

test('Enter on the chosen cell plays the turn shown instead of turning it', () => {
  assert.equal(boardKey(chosen(), 'I9', 'Enter'), 'play');
});

test('Enter on a minor dot of the turn shown plays it too', () => {
  assert.equal(boardKey(chosen(), 'J9', 'Enter'), 'play');
});

test('Enter on a lit cell of another orientation turns the piece there, as a click', () => {
  assert.equal(boardKey(chosen(), 'I10', 'Enter'), 'click');
});

test('Space on the chosen cell turns the piece', () => {
  assert.equal(boardKey(chosen(), 'I9', ' '), 'rotate');
});

test('before a cell is chosen, Enter and Space pick as a click does', () => {
  const ui = newUi();
  ui.pick = { kind: 'triangle' };
  assert.equal(boardKey(ui, 'C4', 'Enter'), 'click');
  assert.equal(boardKey(ui, 'C4', ' '), 'click');
});

test('other keys are left to the page', () => {
  assert.equal(boardKey(chosen(), 'I9', 'r'), null);
  assert.equal(boardKey(chosen(), 'I9', 'Tab'), null);
});

test('the cursor goes to the lit cell fewest steps away', () => {
  assert.equal(nearestCell('I9', ['A2', 'K10', 'Q16']), 'K10');
  assert.equal(nearestCell('A2', ['A2', 'B2']), 'A2');
  assert.equal(nearestCell('I9', []), null);
});

test('of lit cells equally far, the first is taken', () => {
  // H9 and J9 are both one step from I9.
  assert.equal(nearestCell('I9', ['J9', 'H9']), 'J9');
});
