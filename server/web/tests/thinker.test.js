// The engine's answer in words (thinker.js): its score and forced results are for the
// side to move, and the page tells them from White's side.

import './english.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { evaluationText } from '../thinker.js';

test('a score is told for White whoever is to move, in cells of path', () => {
  assert.equal(evaluationText({ score: 120 }, 'white'), '+1.2 for White');
  assert.equal(evaluationText({ score: 120 }, 'black'), '-1.2 for White');
  assert.equal(evaluationText({ score: -35 }, 'black'), '+0.3 for White');
  assert.equal(evaluationText({ score: 0 }, 'white'), '0.0 for White');
  assert.equal(evaluationText({ score: 2 }, 'black'), '0.0 for White');
  assert.equal(evaluationText({ score: 4 }, 'white'), '0.0 for White');
});

test('a forced result names the winner and the turns to the end', () => {
  assert.equal(evaluationText({ score: 999999, end_in: 1 }, 'white'), 'White wins in 1 turn');
  assert.equal(evaluationText({ score: 999997, end_in: 3 }, 'black'), 'Black wins in 3 turns');
  assert.equal(evaluationText({ score: -999998, end_in: -2 }, 'black'), 'White wins in 2 turns');
});
