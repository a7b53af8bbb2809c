// The numbers of the analysis board and of a game's computer analysis, pure so that Node
// tests them (server/web/tests/review.test.js): the engine's score as White's chance to
// win, each turn's loss of that chance, its mark (inaccuracy, mistake, blunder) and each
// player's accuracy, as Lichess computes them from its own win chances.

/** The scale of the win-chance curve, in the engine's score (100 is a cell of connection
 * path): fitted to the engine's games against itself, docs/ENGINE.md "The score as a win
 * chance" (`cargo run -p punct-engine --example win_curve`). */
export const WIN_SCALE = 418;

/** White's chance to win, 0 to 1, from the engine's answer `{score, end_in?}` for the
 * side `toMove` (the score is for the side to move): a logistic curve of the score, and
 * certain for a result the search found forced. */
export function winChance(answer, toMove) {
  const white = toMove === 'white' ? 1 : -1;
  if (answer.end_in !== undefined) return answer.end_in * white > 0 ? 1 : 0;
  return 1 / (1 + Math.exp((-answer.score * white) / WIN_SCALE));
}

/** White's chance after the game ended with `outcome` (`{result, winner?}`). */
export function outcomeChance(outcome) {
  if (outcome.result !== 'win') return 0.5;
  return outcome.winner === 'white' ? 1 : 0;
}

/** A turn's mark by the win chance it lost, in percentage points: Lichess's thresholds,
 * 0.1, 0.2 and 0.3 of its winning chances from -1 to 1 (lila, modules/analyse/src/main/
 * Advice.scala), are 5, 10 and 15 points of a chance from 0 to 100. */
export function markOf(lost) {
  if (lost >= 15) return 'blunder';
  if (lost >= 10) return 'mistake';
  if (lost >= 5) return 'inaccuracy';
  return null;
}

/** One turn's accuracy, 0 to 100, from the mover's win chance (0 to 100) before and
 * after it: Lichess's curve fitted to its own players (lila, modules/analyse/src/main/
 * AccuracyPercent.scala, `fromWinPercents`), with its point of bonus for an imperfect
 * analysis. */
export function turnAccuracy(before, after) {
  if (after >= before) return 100;
  const raw = 103.1668100711649 * Math.exp(-0.04354415386753951 * (before - after)) - 3.166924740191411;
  return Math.min(100, Math.max(0, raw + 1));
}

function mean(values) {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

function deviation(values) {
  const m = mean(values);
  return Math.sqrt(mean(values.map((v) => (v - m) ** 2)));
}

/**
 * Each player's accuracy over a game, 0 to 100 (null for a player without a turn), from
 * White's chance (0 to 100) at each position, the start first: as Lichess's
 * `gameAccuracy` (AccuracyPercent.scala), the mean of two means of the player's turn
 * accuracies, one weighted by how much the chance moved about the turn (the standard
 * deviation over a window of positions, from 0.5 to 12: a turn in a sharp position weighs
 * more) and one harmonic (a blunder pulls it down hard).
 */
export function accuracies(chances) {
  const turns = chances.length - 1;
  const size = Math.min(8, Math.max(2, Math.floor(turns / 10)));
  // The first windows repeat the opening's, so that there is one window a turn.
  const first = chances.slice(0, size);
  const windows = [];
  for (let i = 0; i < Math.min(size, chances.length) - 2; i++) windows.push(first);
  for (let i = 0; i + size <= chances.length; i++) windows.push(chances.slice(i, i + size));
  const byColor = { white: [], black: [] };
  for (let i = 0; i < turns; i++) {
    const color = i % 2 === 0 ? 'white' : 'black';
    const [before, after] = color === 'white' ? [chances[i], chances[i + 1]] : [100 - chances[i], 100 - chances[i + 1]];
    const weight = Math.min(12, Math.max(0.5, deviation(windows[i])));
    byColor[color].push({ accuracy: turnAccuracy(before, after), weight });
  }
  const of = (list) => {
    if (!list.length) return null;
    const weighted = list.reduce((a, x) => a + x.accuracy * x.weight, 0) / list.reduce((a, x) => a + x.weight, 0);
    // Each accuracy counts as at least 1, so that one turn of accuracy 0 (the loss of a
    // won game) does not make the mean 0 too.
    const harmonic = list.length / list.reduce((a, x) => a + 1 / Math.max(x.accuracy, 1), 0);
    return (weighted + harmonic) / 2;
  };
  return { white: of(byColor.white), black: of(byColor.black) };
}

/**
 * The mark of a turn that changes who wins by force (`forced` before and after it: the
 * winner of a result the search found forced there, if any), from the mover's chance to
 * win (0 to 100) before and after it; undefined for a turn that changes no forced result.
 * As Lichess's `MateAdvice` (Advice.scala): a turn that lets the opponent win by force is
 * an inaccuracy if its player was losing anyway below -999 centipawns, a mistake below
 * -700, else a blunder; one that lets a forced win go, the same by its player's score
 * after it. On Lichess's curve those scores are 2.5% and 7% of a chance to win: here the
 * thresholds are those chances.
 */
export function forcedMarkOf(mover, forced, before, after) {
  const opponent = mover === 'white' ? 'black' : 'white';
  if (forced.after === opponent && forced.before !== opponent) {
    if (before < 2.5) return 'inaccuracy';
    return before < 7 ? 'mistake' : 'blunder';
  }
  if (forced.before === mover && forced.after !== mover) {
    if (after > 97.5) return 'inaccuracy';
    return after > 93 ? 'mistake' : 'blunder';
  }
  return undefined;
}

/**
 * A game's analysis from the engine's view of each position: `positions[i]` is the
 * position after `i` turns, `{chance, best?, forced?}` (White's chance 0 to 1, the
 * engine's choice there, the winner of a result it found forced); `turns` the turns
 * played. Answers `{turns: [{n, color, turn, lost, mark, better}], accuracy: {white,
 * black}, counts: {white: {inaccuracy, mistake, blunder}, black: …}}`, where `lost` is
 * the mover's loss of chance in percentage points and `better` the engine's choice where
 * the turn played was marked and differs from it.
 */
export function review(positions, turns) {
  const chances = positions.map((p) => p.chance * 100);
  const counts = { white: { inaccuracy: 0, mistake: 0, blunder: 0 }, black: { inaccuracy: 0, mistake: 0, blunder: 0 } };
  const reviewed = turns.map((turn, i) => {
    const color = i % 2 === 0 ? 'white' : 'black';
    const mine = (chance) => (color === 'white' ? chance : 100 - chance);
    const lost = Math.max(0, mine(chances[i]) - mine(chances[i + 1]));
    const forced = { before: positions[i].forced, after: positions[i + 1].forced };
    const mark = forcedMarkOf(color, forced, mine(chances[i]), mine(chances[i + 1])) ?? markOf(lost);
    if (mark) counts[color][mark]++;
    const best = positions[i].best;
    return { n: i + 1, color, turn, lost, mark, better: mark && best && best !== turn ? best : null };
  });
  return { turns: reviewed, accuracy: accuracies(chances), counts };
}

/** The marks as Lichess writes them after a turn. */
export const GLYPHS = { inaccuracy: '?!', mistake: '?', blunder: '??' };
