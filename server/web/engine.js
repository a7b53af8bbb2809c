// The rules engine in the page: the server's own rules crate compiled to WebAssembly
// (rules-wasm/, embedded in the server as rules.wasm beside this module). With it the
// page finds legal turns, positions and the reason a turn is refused itself, and tells
// the server it needs no lists of legal turns. A server built without the module, or a
// browser without WebAssembly, leaves the page on the server's lists.
//
// The module is spoken to in text, as rules-wasm/src/lib.rs describes: a request of
// lines (command, variant, the turns so far, an argument) in, JSON out.

let loading = null;

/** The engine, loaded once; null when there is none. */
export function loadEngine() {
  loading ??= instantiate().catch(() => null);
  return loading;
}

async function instantiate() {
  if (typeof WebAssembly !== 'object') return null;
  const response = await fetch(new URL('./rules.wasm', import.meta.url));
  if (!response.ok) return null;
  const { instance } = await WebAssembly.instantiateStreaming(response, {});
  return new Engine(instance.exports);
}

class Engine {
  constructor(exports) {
    this.exports = exports;
    this.encoder = new TextEncoder();
    this.decoder = new TextDecoder();
  }

  /** The answer to `command` in a game of `variant` after `turns`; throws what the
   * engine found wrong with the request (an illegal turn among `turns`, say). */
  ask(command, variant, turns, argument = '') {
    const request = this.encoder.encode(`${command}\n${variant}\n${turns.join(' ')}\n${argument}`);
    const at = this.exports.input(request.length);
    // Memory may grow in any call: take the buffer afresh each time.
    new Uint8Array(this.exports.memory.buffer, at, request.length).set(request);
    const length = this.exports.answer();
    const bytes = new Uint8Array(this.exports.memory.buffer, this.exports.output(), length);
    const answer = JSON.parse(this.decoder.decode(bytes));
    if (!Array.isArray(answer) && answer.error !== undefined) throw new Error(answer.error);
    return answer;
  }

  /** Every legal turn, in canonical notation. */
  legal(variant, turns) {
    return this.ask('legal', variant, turns);
  }

  /** `{turn}` (canonical) if `text` is a legal turn here, else `{why}`. */
  check(variant, turns, text) {
    return this.ask('check', variant, turns, text);
  }

  /** The position after `turns`, as `GET /api/rooms/{id}/position/{n}` gives it, with
   * the `outcome` and, after a win by connection, the winning `chain`. */
  position(variant, turns) {
    return this.ask('position', variant, turns);
  }

  /** The turns of a record's text (one turn a line, `#` comments), canonical. */
  record(variant, text) {
    return this.ask('record', variant, [], text).turns;
  }
}
