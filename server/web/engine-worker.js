// The engine in the page: punct-engine compiled to WebAssembly (engine-wasm/, served as
// engine.wasm beside this module), run in this worker so that a search of seconds leaves
// the page free to draw and answer. thinker.js is the page's side.
//
// A message `{id, variant, turns, level, limit, lines?}` (`limit`: 'depth 4' or
// 'ms 1000'; `lines`: a number of lines, asked with the module's `lines` rather than
// `think`) is answered `{id, answer}` with the module's JSON (engine-wasm/src/lib.rs), or
// `{id, error}`. The module's clock is the worker's `performance.now()`.

const loading = (async () => {
  const response = await fetch(new URL('./engine.wasm', import.meta.url));
  if (!response.ok) throw new Error(`the engine is not served (HTTP ${response.status})`);
  const imports = { host: { now: () => performance.now() } };
  const { instance } = await WebAssembly.instantiateStreaming(response, imports);
  return instance.exports;
})();

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function ask(exports, { variant, turns, level, limit, lines }) {
  const [command, argument] = lines ? ['lines', `${lines} ${level} ${limit}`] : ['think', `${level} ${limit}`];
  const request = encoder.encode(`${command}\n${variant}\n${turns.join(' ')}\n${argument}`);
  const at = exports.input(request.length);
  // Memory may grow in any call: take the buffer afresh each time.
  new Uint8Array(exports.memory.buffer, at, request.length).set(request);
  const length = exports.answer();
  return JSON.parse(decoder.decode(new Uint8Array(exports.memory.buffer, exports.output(), length)));
}

self.onmessage = async ({ data }) => {
  try {
    const answer = ask(await loading, data);
    if (answer.error !== undefined) throw new Error(answer.error);
    self.postMessage({ id: data.id, answer });
  } catch (e) {
    self.postMessage({ id: data.id, error: e.message });
  }
};
