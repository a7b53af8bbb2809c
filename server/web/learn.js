// The tutorial, `/learn`: short lessons (tutorial.json, their words in the catalogues as
// `learn.lesson.{id}.*`), each a position in which the learner makes one turn on a
// practice board. The rules engine in the page offers only legal turns; the lesson's goal
// says which are right. A wrong turn is taken back with a hint, a right one stays with a
// word on what it did. Lessons done are remembered in this browser.

import { mountAccount } from './account.js';
import { loadEngine } from './engine.js';
import { parseTurn } from './board.js';
import { practiceBoard } from './practice.js';
import { t } from './i18n.js';
import { el } from './ui.js';

const $ = (id) => document.getElementById(id);
/** Where this browser keeps the lessons done. */
const DONE_KEY = 'punct-lessons-done';

function say(text, kind = '') {
  $('message').textContent = text;
  $('message').dataset.kind = kind;
}

/** Whether `goal` accepts `turn` in the lesson's position (server/tests/it/tutorial.rs
 * judges the same way). */
function accepts(engine, lesson, turn) {
  const { goal } = lesson;
  if (goal.cells) {
    const placed = parseTurn(turn);
    const cells = [placed.punct, ...placed.minors];
    return placed.from === (goal.from ?? null) && cells.length === goal.cells.length && goal.cells.every((c) => cells.includes(c));
  }
  if (goal.turns) return goal.turns.includes(turn);
  const mover = engine.position(lesson.variant, lesson.turns).to_move;
  const { outcome } = engine.position(lesson.variant, [...lesson.turns, turn]);
  return outcome?.result === 'win' && outcome.winner === mover && outcome.reason === goal.wins;
}

/** What `lesson` says as its `part`: `title`, `text`, `hint` or `success`. */
function said(lesson, part) {
  return t(`learn.lesson.${lesson.id}.${part}`);
}

/** The name of lesson number `index` (from 0). */
function step(index, lesson) {
  return t('learn.step', { n: index + 1, title: said(lesson, 'title') });
}

function done() {
  try {
    return new Set(JSON.parse(localStorage.getItem(DONE_KEY) ?? '[]'));
  } catch {
    return new Set();
  }
}

async function main() {
  mountAccount($('account'));
  const [engine, tutorial] = await Promise.all([
    loadEngine(),
    fetch(new URL('./tutorial.json', import.meta.url)).then((response) => response.json()),
  ]);
  if (!engine) {
    $('no-engine').hidden = false;
    document.querySelector('main').hidden = true;
    return;
  }
  const { lessons } = tutorial;
  let current = 0;

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
      const lesson = lessons[current];
      const right = accepts(engine, lesson, turn);
      $('feedback').hidden = false;
      $('feedback').dataset.kind = right ? 'success' : 'hint';
      $('feedback').textContent = said(lesson, right ? 'success' : 'hint');
      say('');
      if (right) {
        const finished = done().add(lesson.id);
        localStorage.setItem(DONE_KEY, JSON.stringify([...finished]));
        $('next').hidden = false;
        $('next').textContent = current + 1 < lessons.length ? t('learn.next') : t('learn.finished');
        $('next').disabled = current + 1 >= lessons.length;
        renderSteps();
      }
      return right;
    },
  );

  function renderSteps() {
    const finished = done();
    $('steps').replaceChildren(
      ...lessons.map((lesson, i) => {
        const button = el('button', { type: 'button', className: finished.has(lesson.id) ? 'done' : '', dataset: { lesson: lesson.id } }, String(i + 1));
        button.title = step(i, lesson);
        button.setAttribute('aria-label', step(i, lesson));
        if (i === current) button.setAttribute('aria-current', 'step');
        button.onclick = () => open(i);
        return el('li', {}, button);
      }),
    );
  }

  function open(index) {
    current = index;
    const lesson = lessons[index];
    $('title').textContent = step(index, lesson);
    $('text').textContent = said(lesson, 'text');
    $('feedback').hidden = true;
    $('next').hidden = true;
    say('');
    board.show({ variant: lesson.variant, turns: lesson.turns, frame: lesson.frame, marked: lesson.goal.cells });
    renderSteps();
    history.replaceState(null, '', `#${lesson.id}`);
  }

  $('next').onclick = () => open(Math.min(current + 1, lessons.length - 1));
  const asked = lessons.findIndex((lesson) => `#${lesson.id}` === location.hash);
  open(asked === -1 ? 0 : asked);
  document.body.dataset.loaded = 'true';
}

main();
