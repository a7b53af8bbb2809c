// The analysis's numbers (review.js): the score as White's chance, the marks of a turn by
// the chance it lost, and the accuracies, against values worked out by hand from
// Lichess's formulas.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { WIN_SCALE, accuracies, forcedMarkOf, markOf, outcomeChance, review, turnAccuracy, winChance } from '../review.js';

const close = (a, b, eps = 1e-6) => assert.ok(Math.abs(a - b) < eps, `${a} is not ${b}`);

test("a score is White's chance on the logistic curve, whoever is to move", () => {
  close(winChance({ score: 0 }, 'white'), 0.5);
  close(winChance({ score: WIN_SCALE }, 'white'), 1 / (1 + Math.exp(-1)));
  close(winChance({ score: WIN_SCALE }, 'black'), 1 / (1 + Math.exp(1)));
  close(winChance({ score: -300 }, 'black') + winChance({ score: -300 }, 'white'), 1);
  assert.ok(winChance({ score: 400 }, 'white') > winChance({ score: 100 }, 'white'));
});

test('a forced result is certain for its winner', () => {
  assert.equal(winChance({ score: 999999, end_in: 1 }, 'white'), 1);
  assert.equal(winChance({ score: 999999, end_in: 1 }, 'black'), 0);
  assert.equal(winChance({ score: -999998, end_in: -2 }, 'black'), 1);
  assert.equal(outcomeChance({ result: 'win', winner: 'black' }), 0);
  assert.equal(outcomeChance({ result: 'draw' }), 0.5);
});

test("marks follow Lichess's thresholds of 5, 10 and 15 points", () => {
  assert.equal(markOf(4.9), null);
  assert.equal(markOf(5), 'inaccuracy');
  assert.equal(markOf(10), 'mistake');
  assert.equal(markOf(14.9), 'mistake');
  assert.equal(markOf(15), 'blunder');
});

test("a turn's accuracy is 100 without loss and falls on Lichess's curve", () => {
  assert.equal(turnAccuracy(40, 45), 100);
  assert.equal(turnAccuracy(40, 40), 100);
  // 103.1668 · e^(-0.04354 · 10) − 3.1669 + 1 = 64.6…
  close(turnAccuracy(60, 50), 103.1668100711649 * Math.exp(-0.4354415386753951) - 2.166924740191411);
  assert.equal(turnAccuracy(100, 0), 0);
});

test('the game accuracy of a player without loss is 100, and a blunder costs its side only', () => {
  const steady = accuracies([50, 50, 50, 50, 50]);
  assert.deepEqual(steady, { white: 100, black: 100 });
  // Black's second turn (the fourth) throws the game away.
  const thrown = accuracies([50, 52, 50, 52, 95, 95]);
  assert.equal(thrown.white, 100);
  assert.ok(thrown.black < 50, `${thrown.black}`);
});

test('a review marks the turn that lost, with the better turn, and counts the marks', () => {
  const positions = [
    { chance: 0.5, best: 'A' },
    { chance: 0.52, best: 'B' },
    { chance: 0.45, best: 'C' },
    { chance: 0.38, best: 'D' },
    { chance: 1 },
  ];
  // Black's last turn is the engine's own choice and still loses: marked, with nothing
  // better to show.
  const { turns, counts, accuracy } = review(positions, ['A', 'X', 'Y', 'D']);
  assert.deepEqual(
    turns.map((t) => [t.n, t.color, t.mark, t.better]),
    [
      [1, 'white', null, null],
      [2, 'black', null, null],
      [3, 'white', 'inaccuracy', 'C'],
      [4, 'black', 'blunder', null],
    ],
  );
  close(turns[2].lost, 7);
  assert.deepEqual(counts.white, { inaccuracy: 1, mistake: 0, blunder: 0 });
  assert.deepEqual(counts.black, { inaccuracy: 0, mistake: 0, blunder: 1 });
  assert.ok(accuracy.white > accuracy.black);
});

test("a turn that lets the opponent win by force is marked by how lost its player was, as Lichess's MateAdvice", () => {
  const lets = (before) => forcedMarkOf('black', { after: 'white' }, before, 0);
  assert.equal(lets(9), 'blunder');
  assert.equal(lets(5), 'mistake');
  assert.equal(lets(2), 'inaccuracy');
  // Already lost by force: nothing changes.
  assert.equal(forcedMarkOf('black', { before: 'white', after: 'white' }, 0, 0), undefined);
  // A forced win let go, by the chance left after it.
  assert.equal(forcedMarkOf('white', { before: 'white' }, 100, 60), 'blunder');
  assert.equal(forcedMarkOf('white', { before: 'white' }, 100, 95), 'mistake');
  assert.equal(forcedMarkOf('white', { before: 'white' }, 100, 99), 'inaccuracy');
  assert.equal(forcedMarkOf('white', {}, 50, 40), undefined);
});

test('a review marks the turn that let a forced win in, though little chance was left to lose', () => {
  // The depth-2 view of the browser tests' game (WHITE_CONNECTS): White 91% before
  // Black's tenth turn, White connecting by force after it.
  const positions = [{ chance: 0.9, best: 'A' }, { chance: 0.91, best: 'B' }, { chance: 1, best: 'C', forced: 'white' }, { chance: 1, forced: 'white' }];
  const { turns } = review(positions, ['A', 'X', 'C']);
  assert.deepEqual(turns.map((t) => t.mark), [null, 'blunder', null]);
  assert.equal(turns[1].better, 'B');
});
