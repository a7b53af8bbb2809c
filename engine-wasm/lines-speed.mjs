// What the analysis board's three lines cost against the engine's one choice: the module
// (engine.wasm as built, its path given) asked `think` and `lines` (three lines) at level
// 5 to depths 3 and 4 on three positions, in Node (V8, the WebAssembly engine Chromium
// runs), the fastest of three runs each. Prints rows of docs/ENGINE.md's table.
//
//   node engine-wasm/lines-speed.mjs target/wasm/wasm32-unknown-unknown/wasm/punct_engine_wasm.wasm

import { readFileSync } from 'node:fs';

const bytes = readFileSync(process.argv[2]);
const { instance } = await WebAssembly.instantiate(bytes, { host: { now: () => performance.now() } });
const module = instance.exports;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function ask(text) {
  const request = encoder.encode(text);
  const at = module.input(request.length);
  new Uint8Array(module.memory.buffer, at, request.length).set(request);
  const length = module.answer();
  return JSON.parse(decoder.decode(new Uint8Array(module.memory.buffer, module.output(), length)));
}

function record(name) {
  const text = readFileSync(new URL(`../rules/tests/records/${name}`, import.meta.url), 'utf8');
  return text.split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#')).join(' ');
}

function fastest(request) {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    const answer = ask(request);
    if (answer.error !== undefined) throw new Error(answer.error);
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

for (const [name, turns] of [['the start', ''], ['`midgame-standard.txt`', record('midgame-standard.txt')], ['`late-standard.txt`', record('late-standard.txt')]]) {
  for (const depth of [3, 4]) {
    const one = fastest(`think\nstandard\n${turns}\n5 depth ${depth}`);
    const three = fastest(`lines\nstandard\n${turns}\n3 5 depth ${depth}`);
    console.log(`| ${name} | ${depth} | ${one.toFixed(0)} ms | ${three.toFixed(0)} ms | ${(three / one).toFixed(1)}× |`);
  }
}
