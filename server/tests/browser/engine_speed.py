#!/usr/bin/env python3
"""The engine's speed in the page against the native engine, for docs/ENGINE.md. Not a
test: it measures one server binary and one `punct` binary.

Usage: engine_speed.py SERVER_BINARY PUNCT_BINARY [DEPTH ...]

For each position (the start, four drops, and two records of the rules' tests) and each
depth (3 and 4 by default), the strongest level searches to that depth natively
(`punct rules think --level 5 --depth N`) and in headless Chromium, in the analysis
board's worker (thinker.js, engine.wasm as the server sends it). Both search the same
tree, so they report the same turn and the same number of positions; the time in the
page is measured around the worker's answer, after a first search has loaded the module.
Each is run three times and the fastest is kept.
"""

import os
import re
import subprocess
import sys
import tempfile

from harness import RECORDS, Browser, Server, wait_until

FOUR_DROPS = ["D6:D7,E8", "I13:J13,K14", "N16:L16,M16", "N13:O12,O13"]


def record_turns(name):
    with open(os.path.join(RECORDS, name)) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


POSITIONS = [
    ("the start", []),
    ("after four drops", FOUR_DROPS),
    ("midgame-standard.txt", record_turns("midgame-standard.txt")),
    ("late-standard.txt", record_turns("late-standard.txt")),
]

# Imports the page's own thinker.js (the path of this release's analysis.js, beside it)
# and times one search in its worker.
SEARCH = """
const [turns, depth, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const src = document.querySelector('script[type=module]').src.replace('analysis.js', 'thinker.js');
import(src).then(async ({ Thinker }) => {
  window.thinker ??= new Thinker();
  await window.thinker.think('standard', [], 5, 'depth 1');
  const started = performance.now();
  const answer = await window.thinker.think('standard', turns, 5, `depth ${depth}`);
  done({ turn: answer.turn, nodes: answer.nodes, ms: performance.now() - started });
}).catch((e) => done({ error: e.message }));
"""


def native(punct, turns, depth):
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write("\n".join(turns) + "\n")
        f.flush()
        out = subprocess.run(
            [punct, "rules", "think", "--variant", "standard", "--level", "5", "--depth", str(depth), "--record", f.name],
            check=True, capture_output=True, text=True,
        ).stdout
    m = re.match(r"(\S+) score \S+ depth \d+ nodes (\d+) in ([\d.]+) s", out)
    return {"turn": m[1], "nodes": int(m[2]), "ms": float(m[3]) * 1000}


def main():
    server_binary, punct = sys.argv[1], sys.argv[2]
    depths = [int(d) for d in sys.argv[3:]] or [3, 4]
    server = Server(server_binary)
    b = Browser("speed", tempfile.mkdtemp())
    try:
        b.driver.set_script_timeout(600)
        b.go(server.base + "/analysis")
        wait_until("the analysis board", lambda: b.js("return document.body.dataset.loaded") == "true")
        print("| position | depth | positions | native | in the page | page / native |")
        print("|---|---|---|---|---|---|")
        for name, turns in POSITIONS:
            for depth in depths:
                here = min((native(punct, turns, depth) for _ in range(3)), key=lambda r: r["ms"])
                page = min((b.driver.execute_async_script(SEARCH, turns, depth) for _ in range(3)), key=lambda r: r.get("ms", 0))
                assert "error" not in page, page
                assert (page["turn"], page["nodes"]) == (here["turn"], here["nodes"]), (name, depth, page, here)
                print(
                    f"| {name} | {depth} | {here['nodes']:,} | {here['ms']:.0f} ms ({here['nodes'] / here['ms'] * 1000:,.0f}/s) "
                    f"| {page['ms']:.0f} ms ({page['nodes'] / page['ms'] * 1000:,.0f}/s) | {page['ms'] / here['ms']:.1f}× |",
                    flush=True,
                )
    finally:
        b.quit()
        server.stop()


if __name__ == "__main__":
    main()
