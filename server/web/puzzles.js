// The puzzles, `/puzzles`: positions from engine games (puzzles.json, made by `punct rules
// puzzles`) in which exactly one turn connects, stops the opponent's connection, or makes
// sure of the centre count. The turn is made on a practice board and checked here against
// the puzzle's one answer. A signed-in player's solved puzzles are kept by the server
// (`/api/me/puzzles`) and marked, and their first result of each puzzle rates them and
// the puzzle. Streak mode (`#streak`) gives the puzzles in rising rating until the first
// wrong try; the best streak is kept by the server, or by the browser for a guest.

import { mountAccount } from './account.js';
import { api } from './api.js';
import { loadEngine } from './engine.js';
import { practiceBoard } from './practice.js';
import { t } from './i18n.js';
import { el, ratingText, side, signedText } from './ui.js';

/** Marks a solved puzzle in its name. */
const SOLVED_MARK = ' ✓';

/** Where a guest's best streak is kept. */
const BEST_STREAK = 'punct-puzzle-streak';

/** A newcomer's rating, for a puzzle whose rating could not be had. */
const UNRATED = { rating: 1500, provisional: true };

/** The words of `puzzle`'s goal: its `name`, `task` or `hint`. */
function goal(puzzle, part, values) {
  return t(`puzzles.goal.${puzzle.goal}.${part}`, values);
}

const $ = (id) => document.getElementById(id);

function say(text, kind = '') {
  $('message').textContent = text;
  $('message').dataset.kind = kind;
}

async function main() {
  const [user, engine, file] = await Promise.all([
    mountAccount($('account')),
    loadEngine(),
    fetch(new URL('./puzzles.json', import.meta.url)).then((response) => response.json()),
  ]);
  if (!engine) {
    $('no-engine').hidden = false;
    document.querySelector('main').hidden = true;
    return;
  }
  const { puzzles } = file;
  const [mine, rated] = await Promise.all([
    user ? api('GET', '/api/me/puzzles') : null,
    api('GET', '/api/puzzles').catch(() => ({ puzzles: [] })),
  ]);
  const solved = new Set(mine ? mine.solved : []);
  /** Each puzzle's rating, by id. */
  const ratings = new Map(rated.puzzles.map((p) => [p.id, p.rating]));
  /** The puzzles whose first result this page has sent: only that one is rated. */
  const sent = new Set(solved);
  let best = mine ? mine.best_streak : Number(localStorage.getItem(BEST_STREAK) ?? 0);
  $('keeping').textContent = user ? t('puzzles.keep.signed-in') : t('puzzles.keep.guest');
  if (mine) showRating(t('puzzles.rating.mine', { rating: ratingText(mine.rating) }));
  let current = 0;
  /** Streak mode's run, or null in the list of all puzzles: the puzzles in rising
   * rating (indexes into `puzzles`), where it stands in them, how many it solved, and
   * whether a wrong try ended it. */
  let streak = null;

  const board = practiceBoard(
    engine,
    {
      svg: $('board'),
      reserve: $('reserve'),
      place: $('place'),
      cancel: $('cancel'),
      say,
      chosen: (turn) => say(t('practice.chosen', { turn })),
    },
    (turn) => {
      const puzzle = puzzles[current];
      const right = turn === puzzle.answer;
      $('feedback').hidden = false;
      $('feedback').dataset.kind = right ? 'success' : 'hint';
      $('feedback').textContent = right ? t('puzzles.right') : goal(puzzle, 'hint');
      say('');
      // The first result is the one rated; a solve after it is still kept as solved.
      if (right ? !solved.has(puzzle.id) : !sent.has(puzzle.id)) report(puzzle, right);
      if (right) solved.add(puzzle.id);
      if (streak) {
        if (!streak.over) counted(right);
      } else if (right) {
        $('next').hidden = current + 1 >= puzzles.length;
      }
      renderList();
      return right;
    },
  );

  /** Tells the server `puzzle` was finished, `right` or not, and shows the ratings. */
  async function report(puzzle, right) {
    sent.add(puzzle.id);
    if (!user) return;
    try {
      const played = await api('POST', '/api/me/puzzles', { puzzle: puzzle.id, solved: right });
      ratings.set(puzzle.id, played.puzzle);
      const rating = ratingText(played.rating);
      if (played.rated) {
        const change = el('span', { className: `diff ${played.change >= 0 ? 'up' : 'down'}` }, signedText(played.change));
        showRating(t('puzzles.rating.mine', { rating }), ' (', change, ')');
      } else {
        showRating(t('puzzles.rating.unchanged', { rating }));
      }
      if (puzzles[current] === puzzle) showPuzzleRating(puzzle);
    } catch (e) {
      say(e.message, 'error');
    }
  }

  function showRating(...parts) {
    $('rating').hidden = false;
    $('rating').replaceChildren(...parts);
  }

  function showPuzzleRating(puzzle) {
    $('puzzle-rating').textContent = t('puzzles.rating.puzzle', { rating: ratingText(ratings.get(puzzle.id) ?? UNRATED) });
  }

  /** Counts streak mode's result of the puzzle shown. */
  function counted(right) {
    if (!right) return endStreak();
    streak.count += 1;
    if (streak.at + 1 >= streak.order.length) return endStreak();
    $('streak').textContent = t('puzzles.streak.count', { count: streak.count });
    $('next').hidden = false;
  }

  /** Ends the streak: shows its length and keeps the best. */
  async function endStreak() {
    streak.over = true;
    const { count } = streak;
    $('streak').textContent = t('puzzles.streak.over', { count });
    $('streak-again').hidden = false;
    if (user) {
      try {
        best = (await api('POST', '/api/me/puzzles/streak', { streak: count })).best_streak;
      } catch (e) {
        say(e.message, 'error');
      }
    } else {
      best = Math.max(best, count);
      localStorage.setItem(BEST_STREAK, String(best));
    }
    showBest();
  }

  function showBest() {
    $('streak-best').hidden = false;
    $('streak-best').textContent = t('puzzles.streak.best', { count: best });
  }

  /** The name of puzzle number `index` (from 0), marked when solved. */
  function named(index) {
    const puzzle = puzzles[index];
    const name = t('puzzles.step', { n: index + 1, goal: goal(puzzle, 'name') });
    return name + (solved.has(puzzle.id) ? SOLVED_MARK : '');
  }

  function renderList() {
    $('steps').replaceChildren(
      ...puzzles.map((puzzle, i) => {
        const done = solved.has(puzzle.id);
        const label = named(i);
        const button = el('button', { type: 'button', className: done ? 'done' : '', dataset: { puzzle: puzzle.id } }, String(i + 1));
        button.title = label;
        button.setAttribute('aria-label', label);
        if (i === current) button.setAttribute('aria-current', 'step');
        button.onclick = () => open(i);
        return el('li', {}, button);
      }),
    );
  }

  function open(index) {
    current = index;
    const puzzle = puzzles[index];
    $('title').textContent = named(index);
    board.show({ variant: puzzle.variant, turns: puzzle.turns });
    $('text').textContent = goal(puzzle, 'task', { colour: side(board.mover()) });
    showPuzzleRating(puzzle);
    $('feedback').hidden = true;
    $('next').hidden = true;
    say('');
    renderList();
    history.replaceState(null, '', streak ? '#streak' : `#${puzzle.id}`);
  }

  /** Shows streak mode (`on`) or the list of all puzzles. */
  function mode(on) {
    for (const id of ['to-all', 'streak-about', 'streak']) $(id).hidden = !on;
    $('to-streak').hidden = on;
    $('steps').hidden = on;
    $('streak-again').hidden = true;
    $('streak-best').hidden = !on;
    if (on) showBest();
  }

  function startStreak() {
    // Sorting is stable: puzzles of equal rating keep the file's order.
    const order = puzzles.map((_, i) => i);
    const rating = (i) => (ratings.get(puzzles[i].id) ?? UNRATED).rating;
    order.sort((a, b) => rating(a) - rating(b));
    streak = { order, at: 0, count: 0, over: false };
    mode(true);
    $('streak').textContent = t('puzzles.streak.count', { count: 0 });
    open(order[0]);
  }

  function showAll(index) {
    streak = null;
    mode(false);
    open(index);
  }

  $('next').onclick = () => {
    if (!streak) return open(Math.min(current + 1, puzzles.length - 1));
    streak.at += 1;
    open(streak.order[streak.at]);
  };
  $('to-streak').onclick = startStreak;
  $('streak-again').onclick = startStreak;
  $('to-all').onclick = () => showAll(0);
  if (location.hash === '#streak') {
    startStreak();
  } else {
    const asked = puzzles.findIndex((puzzle) => `#${puzzle.id}` === location.hash);
    showAll(asked === -1 ? 0 : asked);
  }
  document.body.dataset.loaded = 'true';
}

main();
