// Board geometry, turn notation and the SVG drawing of a position.
//
// Presentation only: which turns are legal always comes from the server (`legal_turns`),
// and positions come from the server's snapshots and `/position/{n}`.

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

/** Hex distance between two cells: neighbours differ by (0,±1), (±1,0) or ±(1,1). */
function distance(a, b) {
  const dc = a.c - b.c;
  const dr = a.r - b.r;
  return Math.max(Math.abs(dc), Math.abs(dr), Math.abs(dc - dr));
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

/** Names of the kinds for people, in reserve order. */
export const KINDS = {
  'straight-middle': 'straight, middle PÜNCT',
  'straight-end': 'straight, end PÜNCT',
  'angular-corner': 'angular, corner PÜNCT',
  'angular-left': 'angular, PÜNCT turning left',
  'angular-right': 'angular, PÜNCT turning right',
  triangle: 'triangle',
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

/** How far a piece is drawn up per level, so lower pieces show under higher ones. */
const LIFT = 3;

function drawPiece(group, piece, extraClass) {
  const lift = (piece.level - 1) * LIFT;
  const covered = piece.dots.some((d) => d.covered);
  const g = el('g', {
    class: `piece ${piece.color}${covered ? ' covered' : ''} ${extraClass}`,
    'data-piece': piece.key,
    transform: `translate(0,${-lift})`,
  }, group);
  const at = piece.dots.map((d) => ({ ...d, ...toScreen(d.cell), rc: parseCell(d.cell) }));
  for (let i = 0; i < at.length; i++) {
    for (let j = i + 1; j < at.length; j++) {
      if (distance(at[i].rc, at[j].rc) === 1) {
        el('line', { class: 'link', x1: at[i].x, y1: at[i].y, x2: at[j].x, y2: at[j].y }, g);
      }
    }
  }
  for (const d of at) {
    el('circle', { class: 'dot', cx: d.x, cy: d.y, r: 9.5 }, g);
    if (d.punct) el('circle', { class: 'punct', cx: d.x, cy: d.y, r: 4 }, g);
  }
}

/**
 * Draws `view` into `svg`: `board` (a snapshot's), `targets` (cells to light up),
 * `source` (cells of the picked piece) and `ghost` (a parsed turn to preview, with
 * `color`).
 */
export function drawBoard(svg, view) {
  svg.replaceChildren();
  svg.setAttribute('viewBox', '-250 -275 500 550');
  const cells = el('g', { class: 'cells' }, svg);
  const targets = new Set(view.targets || []);
  const source = new Set(view.source || []);
  for (const name of CELLS) {
    const { x, y } = toScreen(name);
    const classes = ['cell'];
    if (inCentre(name)) classes.push('centre');
    if (targets.has(name)) classes.push('target');
    if (source.has(name)) classes.push('source');
    el('polygon', { class: classes.join(' '), points: hexagon(x, y, STEP / 1.732), 'data-cell': name }, cells);
  }
  drawLabels(el('g', { class: 'labels' }, svg));
  const pieces = el('g', { class: 'pieces' }, svg);
  const all = piecesOf(view.board).sort((a, b) => a.level - b.level);
  for (const piece of all) drawPiece(pieces, piece, '');
  const badges = el('g', { class: 'badges' }, svg);
  for (const stack of view.board) {
    const top = stack.dots[0].level;
    if (top < 2 && stack.dots.length < 2) continue;
    const { x, y } = toScreen(stack.cell);
    const lift = (top - 1) * LIFT;
    const g = el('g', { class: 'badge', 'data-height': top }, badges);
    el('circle', { cx: x + 9, cy: y - 9 - lift, r: 6.5 }, g);
    el('text', { x: x + 9, y: y - 6.5 - lift }, g).textContent = String(top);
  }
  if (view.ghost) {
    const g = view.ghost;
    const dots = [{ cell: g.punct, punct: true, covered: false }, ...g.minors.map((cell) => ({ cell, punct: false, covered: false }))];
    drawPiece(svg, { key: 'ghost', color: g.color, level: 1, dots }, 'ghost');
  }
}

/**
 * Column letters below the columns and row numbers left of the rows. Each label sits a
 * little beyond the neighbour cell off the board, so the two sets do not meet at A1.
 */
function drawLabels(g) {
  const bottom = {};
  const left = {};
  for (const name of CELLS) {
    const { c, r } = parseCell(name);
    bottom[c] = Math.min(bottom[c] ?? 99, r);
    left[r] = Math.min(left[r] ?? 99, c);
  }
  const label = (text, c, r) => {
    const { x, y } = toScreen({ c, r });
    el('text', { x, y: y + 4 }, g).textContent = text;
  };
  for (let c = 1; c <= 17; c++) label(COLS[c - 1], c, bottom[c] - 1.15);
  for (let r = 1; r <= 17; r++) label(String(r), left[r] - 1.15, r);
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
