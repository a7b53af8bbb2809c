// Board geometry, turn notation and the SVG drawing of a position: its cells (each a
// button for the keyboard and screen readers), the three pairs of sides, the last turn,
// a winning chain, a piece being placed.
//
// Presentation only: which turns are legal, who won and the chain that won come from the
// rules engine (the server's, or its WebAssembly build in the page).

import { t } from './i18n.js';

const COLS = 'ABCDEFGHIJKLMNOPQ';
const CORNERS = new Set(['A1', 'A9', 'I1', 'I17', 'Q9', 'Q17']);
/** Distance between the centres of two neighbouring cells, in SVG units. */
const STEP = 30;
const SVG_NS = 'http://www.w3.org/2000/svg';

/** The cell named `name` as column and row numbers (A = 1). */
export function parseCell(name) {
  return { c: COLS.indexOf(name[0]) + 1, r: Number(name.slice(1)) };
}

function cellName(c, r) {
  return COLS[c - 1] + r;
}

/** Every cell of the board (RULES.md section 1), column by column. */
export const CELLS = [];
for (let c = 1; c <= 17; c++) {
  for (let r = 1; r <= 17; r++) {
    if (Math.abs(r - c) <= 8 && !CORNERS.has(cellName(c, r))) CELLS.push(cellName(c, r));
  }
}

const ON_BOARD = new Set(CELLS);

/** Seven cells in a line from (c, r), one step of (dc, dr) apart. */
function line(c, r, dc, dr) {
  return Array.from({ length: 7 }, (_, i) => cellName(c + i * dc, r + i * dr));
}

/** The three pairs of opposite sides (RULES.md section 1): a chain joining the two
 * sides of one pair wins. */
export const SIDES = [
  [line(1, 2, 0, 1), line(17, 10, 0, 1)],
  [line(2, 1, 1, 0), line(10, 17, 1, 0)],
  [line(10, 2, 1, 1), line(2, 10, 1, 1)],
];

/**
 * A winning chain as the rules engine gives it (`position`'s `chain`: its cells in order
 * and the cells of the two sides it joins) in the form `drawBoard` takes: `{pair, cells}`,
 * `pair` indexing `SIDES`.
 */
export function chainView(chain) {
  if (!chain) return null;
  const [first, last] = [chain.cells[0], chain.cells[chain.cells.length - 1]];
  const pair = SIDES.findIndex(([a, b]) => (a.includes(first) && b.includes(last)) || (b.includes(first) && a.includes(last)));
  return { pair, cells: chain.cells };
}

/**
 * The cell beside `name` in the direction of an arrow key as the board is drawn (`flip`:
 * turned half a turn), or null at the edge. Left and right zigzag between the two
 * neighbours on that side, so that repeated presses keep to one screen row.
 */
export function cellTowards(name, key, flip) {
  const { c, r } = parseCell(name);
  const turned = { ArrowUp: 'ArrowDown', ArrowDown: 'ArrowUp', ArrowLeft: 'ArrowRight', ArrowRight: 'ArrowLeft' };
  const odd = c % 2 === 1;
  const steps = {
    ArrowUp: [[0, 1]],
    ArrowDown: [[0, -1]],
    ArrowRight: odd ? [[1, 1], [1, 0]] : [[1, 0], [1, 1]],
    ArrowLeft: odd ? [[-1, 0], [-1, -1]] : [[-1, -1], [-1, 0]],
  }[flip ? turned[key] : key];
  const cell = (steps || [])
    .map(([dc, dr]) => (c + dc >= 1 && c + dc <= 17 ? cellName(c + dc, r + dr) : null))
    .find((next) => ON_BOARD.has(next));
  return cell ?? null;
}

/** Hex distance between two cells: neighbours differ by (0,±1), (±1,0) or ±(1,1). */
function distance(a, b) {
  const dc = a.c - b.c;
  const dr = a.r - b.r;
  return Math.max(Math.abs(dc), Math.abs(dr), Math.abs(dc - dr));
}

/** The cell of `cells` fewest steps from `name` (the first of them on a tie), or null
 * when `cells` is empty: where the keyboard goes once a piece is picked. */
export function nearestCell(name, cells) {
  const from = parseCell(name);
  let best = null;
  for (const cell of cells) {
    if (best === null || distance(from, parseCell(cell)) < distance(from, parseCell(best))) best = cell;
  }
  return best;
}

function inCentre(name) {
  return distance(parseCell(name), { c: 9, r: 9 }) <= 2;
}

/**
 * Screen position of a cell: columns run left to right, rows rise, and the third line
 * (r − c constant) climbs to the right; I9 is at the origin.
 */
function toScreen(name) {
  const { c, r } = typeof name === 'string' ? parseCell(name) : name;
  return { x: 0.866 * STEP * (c - 9), y: 0.5 * STEP * (c - 9) - STEP * (r - 9) };
}

/**
 * A turn in notation (RULES.md section 5) as its cells: `from` is null for a drop,
 * and for `pass` everything is null.
 */
export function parseTurn(text) {
  const m = /^([A-Q]\d+)(?:-([A-Q]\d+))?:([A-Q]\d+),([A-Q]\d+)$/.exec(text);
  if (!m) return { text, from: null, punct: null, minors: [] };
  return {
    text,
    from: m[2] ? m[1] : null,
    punct: m[2] || m[1],
    minors: [m[3], m[4]],
  };
}

/** Whether the turn is a drop. */
export function isDrop(turn) {
  return turn.punct !== null && turn.from === null;
}

/**
 * The kind of piece a placement shows: the three cells with the PÜNCT marked determine
 * it (RULES.md section 2). Left is counter-clockwise as drawn here.
 */
export function kindOf(turn) {
  const p = parseCell(turn.punct);
  const [a, b] = turn.minors.map(parseCell);
  const pa = distance(p, a) === 1;
  const pb = distance(p, b) === 1;
  if (pa && pb) {
    if (distance(a, b) === 1) return 'triangle';
    return a.c + b.c === 2 * p.c && a.r + b.r === 2 * p.r ? 'straight-middle' : 'angular-corner';
  }
  const [mid, end] = pa ? [a, b] : [b, a];
  if (end.c - mid.c === mid.c - p.c && end.r - mid.r === mid.r - p.r) return 'straight-end';
  const v = vector(p, mid);
  const w = vector(mid, end);
  // Screen y grows downwards, so a counter-clockwise turn has a negative cross product.
  return v.x * w.y - v.y * w.x < 0 ? 'angular-left' : 'angular-right';
}

function vector(from, to) {
  const f = toScreen(cellName(from.c, from.r));
  const t = toScreen(cellName(to.c, to.r));
  return { x: t.x - f.x, y: t.y - f.y };
}

/** How many visible dots each player has in the central hexagon of `board` (a
 * snapshot's): the count that ends a standard game without a connection. */
export function centreCount(board) {
  const count = { white: 0, black: 0 };
  for (const stack of board) if (inCentre(stack.cell)) count[stack.dots[0].color] += 1;
  return count;
}

/** The 19 cells of the central hexagon. */
export const CENTRE = CELLS.filter(inCentre);

/** Names of the kinds for people, in reserve order. */
export const KINDS = {
  'straight-middle': t('kind.straight-middle'),
  'straight-end': t('kind.straight-end'),
  'angular-corner': t('kind.angular-corner'),
  'angular-left': t('kind.angular-left'),
  'angular-right': t('kind.angular-right'),
  triangle: t('kind.triangle'),
};

/** The pieces on a board (a snapshot's `board`), each with its cells and level. */
export function piecesOf(board) {
  const pieces = new Map();
  for (const stack of board) {
    stack.dots.forEach((dot, depth) => {
      const key = `${dot.color}-${dot.piece}`;
      if (!pieces.has(key)) {
        pieces.set(key, { key, color: dot.color, kind: dot.kind, level: dot.level, dots: [] });
      }
      pieces.get(key).dots.push({ cell: stack.cell, punct: dot.punct, covered: depth > 0 });
    });
  }
  return [...pieces.values()];
}

/**
 * A turn in words, for a screen reader: who, which piece, from and to, its dots, and
 * whether it jumped or landed as a bridge (RULES.md 3.3), read off `board`, the position
 * after it. `by` is the mover's colour.
 */
export function describeTurn(text, by, board) {
  const who = t(`side.${by}`);
  const turn = parseTurn(text);
  if (!turn.punct) return t('announce.pass', { side: who });
  const stack = board.find((s) => s.cell === turn.punct);
  const top = stack?.dots.find((d) => d.punct && d.color === by) ?? stack?.dots[0];
  const piece = top ? piecesOf(board).find((p) => p.key === `${top.color}-${top.piece}`) : null;
  const kind = top ? KINDS[top.kind] : '';
  const dots = turn.minors.join(', ');
  const words = turn.from
    ? [t('announce.move', { side: who, kind, from: turn.from, to: turn.punct, dots })]
    : [t('announce.drop', { side: who, kind, cell: turn.punct, dots })];
  if (piece && piece.level > 1) {
    // Landed on pieces: a bridge where a dot of it has nothing right under it.
    const under = (cell) => board.find((s) => s.cell === cell)?.dots.some((d) => d.level === piece.level - 1);
    const bridge = [turn.punct, ...turn.minors].some((cell) => !under(cell));
    words.push(t(bridge ? 'announce.bridge' : 'announce.jump', { level: piece.level }));
  }
  return words.join(' ');
}

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function hexagon(x, y, radius) {
  const points = [];
  for (let i = 0; i < 6; i++) {
    const a = (Math.PI / 3) * i;
    points.push(`${(x + radius * Math.cos(a)).toFixed(1)},${(y + radius * Math.sin(a)).toFixed(1)}`);
  }
  return points.join(' ');
}

/** Where cells are drawn: as `toScreen`, or turned half a turn for a flipped board. */
function projection(flip) {
  return (name) => {
    const { x, y } = toScreen(name);
    return flip ? { x: -x, y: -y } : { x, y };
  };
}

/** How far a piece is drawn up per level, so lower pieces show under higher ones. */
const LIFT = 3;

function drawPiece(group, piece, extraClass, at = toScreen) {
  const lift = (piece.level - 1) * LIFT;
  const covered = piece.dots.some((d) => d.covered);
  const g = el('g', {
    class: `piece ${piece.color}${covered ? ' covered' : ''} ${extraClass}`,
    'data-piece': piece.key,
    transform: `translate(0,${-lift})`,
  }, group);
  const dots = piece.dots.map((d) => ({ ...d, ...at(d.cell), rc: parseCell(d.cell) }));
  for (let i = 0; i < dots.length; i++) {
    for (let j = i + 1; j < dots.length; j++) {
      if (distance(dots[i].rc, dots[j].rc) === 1) {
        el('line', { class: 'link', x1: dots[i].x, y1: dots[i].y, x2: dots[j].x, y2: dots[j].y }, g);
      }
    }
  }
  for (const d of dots) {
    el('circle', { class: 'dot', cx: d.x, cy: d.y, r: 9.5, 'data-cell': d.cell }, g);
    // Black's dots carry a ring, so the sides differ by more than their colour.
    if (piece.color === 'black') el('circle', { class: 'ring', cx: d.x, cy: d.y, r: 6.5 }, g);
    if (d.punct) el('circle', { class: 'punct', cx: d.x, cy: d.y, r: 4 }, g);
  }
}

/** What a cell holds, in words, for its label. */
function describe(name, stack) {
  if (!stack) return t('board.cell.empty', { cell: name });
  const top = stack.dots[0];
  const values = { cell: name, colour: t(`colour.${top.color}`), kind: KINDS[top.kind], level: top.level };
  return t(top.punct ? 'board.cell.punct' : 'board.cell.dot', values);
}

/**
 * Draws `view` into `svg`:
 * - `board`: a snapshot's board;
 * - `flip`: turned half a turn (Black's view);
 * - `targets`, `minors`: cells lit as destinations of the PÜNCT and of a minor dot;
 * - `source`: the cells of the picked piece;
 * - `ghost`: a parsed turn to preview, with `color`;
 * - `arrow`: `{from, to}`, cells an arrow is drawn between over the pieces (the engine's
 *   choice of a move or jump, on the analysis board);
 * - `last`: the last turn, `{from, to}` (the PÜNCT's origin for a move, the cells it
 *   went to);
 * - `chain`: a winning chain (`chainView`), drawn with the two sides it joins;
 * - `marked`: cells a lesson points at;
 * - `focus`: the cell the keyboard is on; the others are reached with the arrow keys;
 * - `frame`: cells to crop the view to (with a margin that shows their neighbours),
 *   for a picture of a part of the board; without it the whole board is drawn.
 * Each cell is a button named by its content for screen readers.
 */
export function drawBoard(svg, view) {
  const at = projection(view.flip);
  const focused = svg.contains(document.activeElement);
  svg.replaceChildren();
  svg.setAttribute('viewBox', view.frame ? frameBox(view.frame, at) : '-250 -275 500 550');
  const lit = {
    target: view.targets,
    minor: view.minors,
    source: view.source,
    'last-from': view.last?.from ? [view.last.from] : [],
    'last-to': view.last?.to,
    chain: view.chain?.cells,
    marked: view.marked,
  };
  const classes = Object.entries(lit).map(([name, cells]) => [name, new Set(cells || [])]);
  const stacks = new Map(view.board.map((stack) => [stack.cell, stack]));
  const cells = el('g', { class: 'cells' }, svg);
  let cursor = null;
  for (const name of CELLS) {
    const { x, y } = at(name);
    const names = ['cell', ...(inCentre(name) ? ['centre'] : []), ...classes.filter(([, set]) => set.has(name)).map(([n]) => n)];
    const polygon = el('polygon', {
      class: names.join(' '),
      points: hexagon(x, y, STEP / 1.732),
      'data-cell': name,
      role: 'button',
      'aria-label': names.includes('target') ? t('board.cell.target', { cell: describe(name, stacks.get(name)) }) : describe(name, stacks.get(name)),
      tabindex: name === view.focus ? 0 : -1,
    }, cells);
    if (name === view.focus) cursor = polygon;
  }
  drawSides(el('g', { class: 'sides' }, svg), at, view.chain?.pair);
  drawLabels(el('g', { class: 'labels' }, svg), at, view.flip);
  const pieces = el('g', { class: 'pieces' }, svg);
  const all = piecesOf(view.board).sort((a, b) => a.level - b.level);
  for (const piece of all) drawPiece(pieces, piece, '', at);
  const badges = el('g', { class: 'badges' }, svg);
  for (const stack of view.board) {
    const top = stack.dots[0].level;
    if (top < 2 && stack.dots.length < 2) continue;
    const { x, y } = at(stack.cell);
    const lift = (top - 1) * LIFT;
    const g = el('g', { class: 'badge', 'data-height': top }, badges);
    el('circle', { cx: x + 9, cy: y - 9 - lift, r: 6.5 }, g);
    el('text', { x: x + 9, y: y - 6.5 - lift }, g).textContent = String(top);
  }
  if (view.last?.from) {
    // The way the PÜNCT went, over the pieces.
    const from = at(view.last.from);
    const to = at(view.last.to[0]);
    el('line', { class: 'last-path', x1: from.x, y1: from.y, x2: to.x, y2: to.y }, svg);
  }
  if (view.chain) {
    const points = view.chain.cells.map((cell) => at(cell)).map(({ x, y }) => `${x},${y}`);
    el('polyline', { class: 'chain-line', points: points.join(' ') }, svg);
  }
  if (view.arrow) drawArrow(svg, at(view.arrow.from), at(view.arrow.to));
  if (view.ghost) {
    const g = view.ghost;
    const dots = [{ cell: g.punct, punct: true, covered: false }, ...g.minors.map((cell) => ({ cell, punct: false, covered: false }))];
    drawPiece(svg, { key: 'ghost', color: g.color, level: 1, dots }, 'ghost', at);
  }
  // Redrawing replaced the cell that had the keyboard's focus: give it to the new one.
  if (focused && cursor) cursor.focus({ preventScroll: true });
}

/** An arrow from `from` to `to` (screen points), its head short of the cell's centre. */
function drawArrow(svg, from, to) {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const length = Math.hypot(dx, dy) || 1;
  const [ux, uy] = [dx / length, dy / length];
  const tip = { x: to.x - ux * 6, y: to.y - uy * 6 };
  const base = { x: tip.x - ux * 14, y: tip.y - uy * 14 };
  const g = el('g', { class: 'arrow' }, svg);
  el('line', { x1: from.x, y1: from.y, x2: base.x, y2: base.y }, g);
  const wing = (side) => `${base.x + side * uy * 9},${base.y - side * ux * 9}`;
  el('polygon', { points: `${tip.x},${tip.y} ${wing(1)} ${wing(-1)}` }, g);
}

/**
 * Starts the slide of the piece drawn with its PÜNCT on `to` (by `drawBoard` from `view`)
 * from where it stood, its PÜNCT on `from`: an animation of `ms` milliseconds, already
 * `elapsed` into it (a redraw in the middle of a slide carries it on). Returns it, or
 * null when no such piece is drawn.
 */
export function slidePiece(svg, view, from, to, ms, elapsed = 0) {
  const top = view.board.find((stack) => stack.cell === to)?.dots[0];
  const piece = top && svg.querySelector(`.pieces [data-piece="${top.color}-${top.piece}"]`);
  if (!piece) return null;
  const at = projection(view.flip);
  const [start, end] = [at(from), at(to)];
  // The CSS transform replaces the attribute that lifts the piece to its level: keep it.
  const lift = -(top.level - 1) * LIFT;
  const animation = piece.animate(
    [
      { transform: `translate(${start.x - end.x}px, ${start.y - end.y + lift}px)` },
      { transform: `translate(0px, ${lift}px)` },
    ],
    { duration: ms, easing: 'ease-out' },
  );
  animation.currentTime = elapsed;
  return animation;
}

/** The view box around `cells` as `at` draws them, wide enough to show the dots of
 * their neighbours whole. */
function frameBox(cells, at) {
  const points = cells.map((cell) => at(cell));
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const margin = 1.3 * STEP;
  const x = Math.min(...xs) - margin;
  const y = Math.min(...ys) - margin;
  return `${x} ${y} ${Math.max(...xs) + margin - x} ${Math.max(...ys) + margin - y}`;
}

/**
 * A band along the rim of each of the six sides, the two of a pair alike (colour and
 * dash); `won`, the pair a winning chain joins, drawn stronger.
 */
function drawSides(g, at, won) {
  // From a cell's centre to just outside its outer edge.
  const rim = STEP * 0.62;
  SIDES.forEach((pair, i) => {
    for (const side of pair) {
      const first = at(side[0]);
      const last = at(side[6]);
      const middle = at(side[3]);
      const length = Math.hypot(middle.x, middle.y);
      const out = { x: (middle.x / length) * rim, y: (middle.y / length) * rim };
      const half = { x: (last.x - first.x) / 12, y: (last.y - first.y) / 12 };
      el('line', {
        class: `side pair-${i}${won === i ? ' won' : ''}`,
        'data-pair': i,
        x1: first.x - half.x + out.x,
        y1: first.y - half.y + out.y,
        x2: last.x + half.x + out.x,
        y2: last.y + half.y + out.y,
      }, g);
    }
  });
}

/**
 * Column letters below the columns and row numbers left of the rows, as the board is
 * drawn. Each label sits a little beyond the cell off the board's edge; where a letter
 * would meet a number (both fall in the missing corner A1, or Q17 when flipped), the
 * letter moves further out.
 */
function drawLabels(g, at, flip) {
  // The end of each column and row that is drawn lowest and leftmost.
  const pick = flip ? Math.max : Math.min;
  const out = flip ? 1.15 : -1.15;
  const bottom = {};
  const left = {};
  for (const name of CELLS) {
    const { c, r } = parseCell(name);
    bottom[c] = pick(bottom[c] ?? r, r);
    left[r] = pick(left[r] ?? c, c);
  }
  const rows = [];
  for (let r = 1; r <= 17; r++) rows.push({ text: String(r), ...at({ c: left[r] + out, r }) });
  const columns = [];
  for (let c = 1; c <= 17; c++) {
    let spot = at({ c, r: bottom[c] + out });
    if (rows.some((row) => Math.hypot(row.x - spot.x, row.y - spot.y) < 16)) spot = at({ c, r: bottom[c] + out * 1.5 });
    columns.push({ text: COLS[c - 1], ...spot });
  }
  for (const { text, x, y } of [...rows, ...columns]) el('text', { x, y: y + 4 }, g).textContent = text;
}

/** One placement of each kind, for the reserve's pictures; `kindOf` names them. */
const SAMPLES = [
  ['I9', 'H9', 'J9'],
  ['H9', 'I9', 'J9'],
  ['I9', 'H9', 'I8'],
  ['H9', 'I9', 'J10'],
  ['H9', 'I8', 'I9'],
  ['I9', 'I10', 'J10'],
].map(([punct, ...minors]) => ({ punct, minors, from: null }));

/** A small picture of a piece of `kind` in `color`, PÜNCT marked. */
export function kindIcon(kind, color) {
  const sample = SAMPLES.find((s) => kindOf(s) === kind);
  const svg = el('svg', { class: 'icon' });
  const at = [sample.punct, ...sample.minors].map(toScreen);
  const xs = at.map((p) => p.x);
  const ys = at.map((p) => p.y);
  const pad = 12;
  const x0 = Math.min(...xs) - pad;
  const y0 = Math.min(...ys) - pad;
  svg.setAttribute('viewBox', `${x0} ${y0} ${Math.max(...xs) - x0 + pad} ${Math.max(...ys) - y0 + pad}`);
  const dots = [
    { cell: sample.punct, punct: true, covered: false },
    ...sample.minors.map((cell) => ({ cell, punct: false, covered: false })),
  ];
  drawPiece(svg, { key: kind, color, level: 1, dots }, '');
  return svg;
}
