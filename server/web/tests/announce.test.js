// A turn in words for a screen reader (board.js `describeTurn`): who, which piece, where
// it went, and a jump or a bridge as RULES.md 3.3 says, read off the board after it.

import './english.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { describeTurn } from '../board.js';

/** A stack of dots on `cell`, topmost first: [colour, kind, piece, level, punct]. */
function stack(cell, ...dots) {
  return { cell, dots: dots.map(([color, kind, piece, level, punct]) => ({ color, kind, piece, level, punct })) };
}

test('a drop names its side, its piece, its PÜNCT and its other dots', () => {
  const board = [stack('C4', ['white', 'triangle', 12, 1, true]), stack('C5', ['white', 'triangle', 12, 1, false]), stack('D5', ['white', 'triangle', 12, 1, false])];
  assert.equal(describeTurn('C4:C5,D5', 'white', board), 'White drops a piece (triangle) with its PÜNCT on C4, its other dots on C5, D5.');
});

test('a move onto another piece is a jump to its level', () => {
  const under = ['white', 'triangle', 3, 1, false];
  const board = [
    stack('F8', ['black', 'triangle', 7, 2, true], ['white', 'triangle', 3, 1, true]),
    stack('E8', ['black', 'triangle', 7, 2, false], under),
    stack('G9', ['black', 'triangle', 7, 2, false], under),
  ];
  assert.equal(describeTurn('F5-F8:E8,G9', 'black', board), 'Black moves a piece (triangle) from F5 to F8, its other dots on E8, G9. It jumps to level 2.');
});

test('a piece with nothing right under one of its dots lands as a bridge', () => {
  const end = ['white', 'straight-end', 1, 1, false];
  const board = [
    stack('D4', ['black', 'straight-end', 5, 2, true], ['white', 'straight-end', 1, 1, true]),
    stack('E5'),
    stack('F6', ['black', 'straight-end', 5, 2, false], end),
  ];
  board[1].dots = [{ color: 'black', kind: 'straight-end', piece: 5, level: 2, punct: false }];
  assert.equal(describeTurn('B2-D4:E5,F6', 'black', board).endsWith('It lands as a bridge at level 2.'), true);
});

test('a pass is said as one', () => {
  assert.equal(describeTurn('pass', 'black', []), 'Black passes.');
});
