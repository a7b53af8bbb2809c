// The page's side of the engine in a worker (engine-worker.js): asks it for the engine's
// choice and line, one search at a time. A new question stops the search under way by
// ending its worker, since a module busy searching reads no messages; the next question
// starts a fresh one (the module loads from the browser's cache).

import { t } from './i18n.js';
import { side } from './ui.js';

/** Whether this browser can run the engine at all. */
export function canThink() {
  return typeof Worker === 'function' && typeof WebAssembly === 'object';
}

export class Thinker {
  constructor() {
    this.worker = null;
    this.pending = null;
    this.asked = 0;
  }

  /** The engine's choice for the side to move after `turns`: `{turn, score, depth,
   * nodes, line, end_in?}` (engine-wasm/src/lib.rs), searched at `level` (1 to 5) to
   * `limit`, 'depth N' or 'ms N'. Rejects when the search is stopped or fails. */
  think(variant, turns, level, limit) {
    return this.ask({ variant, turns, level, limit });
  }

  /** Up to `count` lines for the side to move after `turns`, each a choice as `think`
   * answers it: the engine's own first, then the best other turns. */
  async lines(variant, turns, level, limit, count) {
    return (await this.ask({ variant, turns, level, limit, lines: count })).lines;
  }

  ask(question) {
    this.stop();
    this.worker ??= this.start();
    const id = ++this.asked;
    return new Promise((resolve, reject) => {
      this.pending = { id, resolve, reject };
      this.worker.postMessage({ id, ...question });
    });
  }

  /** Stops the search under way, if any; its promise rejects. */
  stop() {
    if (!this.pending) return;
    this.worker.terminate();
    this.worker = null;
    this.pending.reject(new Error('stopped'));
    this.pending = null;
  }

  start() {
    const worker = new Worker(new URL('./engine-worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = ({ data }) => {
      if (this.pending?.id !== data.id) return;
      const { resolve, reject } = this.pending;
      this.pending = null;
      if (data.error !== undefined) reject(new Error(data.error));
      else resolve(data.answer);
    };
    worker.onerror = (event) => {
      const pending = this.pending;
      this.pending = null;
      pending?.reject(new Error(event.message || 'the engine did not start'));
    };
    return worker;
  }
}

/** A score for White in cells of connection path (the engine counts hundredths). */
export function scoreText(score) {
  const cells = Math.abs(score / 100).toFixed(1);
  if (cells === '0.0') return cells;
  return `${score > 0 ? '+' : '-'}${cells}`;
}

/** The engine's evaluation for White, in words: a forced result, or the score. */
export function evaluationText(answer, toMove) {
  const white = toMove === 'white' ? 1 : -1;
  if (answer.end_in !== undefined) {
    const winner = side(answer.end_in * white > 0 ? 'white' : 'black');
    const plies = Math.abs(answer.end_in);
    return t('engine.wins-in', { side: winner, count: plies });
  }
  return t('engine.score', { score: scoreText(answer.score * white) });
}
