// A player's page, `/player/{username}`: their rating in each variant with a chart of
// it over time, their results and their recent games, from `GET /api/players/{username}`.

import { api } from './api.js';
import { mountAccount } from './account.js';
import { el, gameRows, gamesHead, labelled, ratingText, when } from './ui.js';
import { lang, t } from './i18n.js';

const $ = (id) => document.getElementById(id);
const username = decodeURIComponent(location.pathname.split('/')[2] || '');

/** Every account starts at this rating and deviation (server/API.md, Ratings). */
const START = { rating: 1500, deviation: 350 };

const SVG = 'http://www.w3.org/2000/svg';

/** Makes an SVG element; `attrs` are attributes, `children` nodes or strings (text);
 * null children are left out. */
function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  node.append(...children.filter((c) => c !== null));
  return node;
}

/** Round numbers between `low` and `high` to mark an axis with. */
function ticks(low, high) {
  const step = [50, 100, 200, 500].find((s) => (high - low) / s <= 6) ?? 1000;
  const marks = [];
  for (let v = Math.ceil(low / step) * step; v <= high; v += step) marks.push(v);
  return marks;
}

/** The chart of one variant's rating over time: the rating after each rated game (each
 * point links to the game), from the starting rating when the account was made, with one
 * deviation either side of each point. */
function chart(variant, points) {
  const width = 640;
  const height = 220;
  const left = 48;
  const right = 12;
  const top = 10;
  const bottom = 26;
  const ratings = points.map((p) => p.rating);
  const low = Math.floor((Math.min(...ratings) - 100) / 50) * 50;
  const high = Math.ceil((Math.max(...ratings) + 100) / 50) * 50;
  const first = points[0].at;
  const last = points.at(-1).at;
  const x = (at) => (last === first ? (left + width - right) / 2 : left + ((at - first) / (last - first)) * (width - left - right));
  const y = (rating) => top + ((high - rating) / (high - low)) * (height - top - bottom);
  const clip = `clip-${variant}`;

  // One deviation either side of each point, as a whisker: the rating is likely there.
  const whiskers = points.map((p) =>
    svg('line', { class: 'deviation', x1: x(p.at), x2: x(p.at), y1: y(p.rating + p.deviation), y2: y(p.rating - p.deviation) }),
  );
  // Dates alone when the games span days; with the time when they fall on one day.
  const day = (at) => new Date(at).toLocaleDateString(lang);
  const label = day(first) === day(last) ? when : day;
  const grid = ticks(low, high).map((v) =>
    svg(
      'g',
      { class: 'tick' },
      svg('line', { x1: left, x2: width - right, y1: y(v), y2: y(v) }),
      svg('text', { x: left - 6, y: y(v) + 4, 'text-anchor': 'end' }, String(v)),
    ),
  );
  const dots = points.map((p) => {
    const dot = svg(
      'circle',
      { cx: x(p.at), cy: y(p.rating), r: 4, class: p.room ? 'game' : 'start' },
      svg('title', {}, t(p.room ? 'player.point' : 'player.point.start', { when: when(p.at), rating: ratingText(p), deviation: Math.round(p.deviation) })),
    );
    return p.room ? svg('a', { href: `/room/${encodeURIComponent(p.room)}` }, dot) : dot;
  });
  return svg(
    'svg',
    { class: 'chart', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': t('player.chart', { variant: t(`variant.${variant}`) }) },
    svg('defs', {}, svg('clipPath', { id: clip }, svg('rect', { x: left, y: top, width: width - left - right, height: height - top - bottom }))),
    ...grid,
    svg('g', { 'clip-path': `url(#${clip})` }, ...whiskers),
    svg('polyline', { class: 'line', points: points.map((p) => `${x(p.at)},${y(p.rating)}`).join(' ') }),
    ...dots,
    svg('text', { x: left, y: height - 6, class: 'date' }, label(first)),
    last === first ? null : svg('text', { x: width - right, y: height - 6, class: 'date', 'text-anchor': 'end' }, label(last)),
  );
}

function ratingPanel(created, { variant, rating, games, history }) {
  // Provisional as the server marks it: a deviation above 110.
  const points = [
    { at: created, ...START, provisional: true },
    ...history.map((h) => ({ ...h, provisional: h.deviation > 110 })),
  ];
  return el(
    'section',
    { className: 'panel rating', dataset: { variant } },
    el(
      'h2',
      {},
      `${labelled(t(`variant.${variant}`))} `,
      el('span', { className: 'value' }, ratingText(rating)),
      ' ',
      el('small', {}, t(rating.provisional ? 'player.rating.provisional' : 'player.rating', { deviation: Math.round(rating.deviation), count: games })),
    ),
    chart(variant, points),
  );
}

async function load() {
  document.title = t('title.player-of', { username });
  $('username').textContent = username;
  let profile;
  try {
    profile = await api('GET', `/api/players/${encodeURIComponent(username)}`);
  } catch (e) {
    $('profile-error').textContent = e.code === 'no-such-player' ? t('player.none', { username }) : e.message;
    $('profile-error').hidden = false;
    return;
  }
  $('username').textContent = profile.username;
  $('joined').textContent = t('player.joined', { when: when(profile.created_at) });
  const { wins, losses, draws } = profile.results;
  const count = (n, what, id) => el('span', { id }, el('b', {}, String(n)), ` ${what}`);
  $('results').replaceChildren(
    count(wins, t('player.wins', { count: wins }), 'wins'),
    ', ',
    count(losses, t('player.losses', { count: losses }), 'losses'),
    ', ',
    count(draws, t('player.draws', { count: draws }), 'draws'),
  );
  $('ratings').replaceChildren(
    ...(profile.ratings.length
      ? profile.ratings.map((r) => ratingPanel(profile.created_at, r))
      : [el('section', { className: 'panel', id: 'unrated' }, t('player.unrated'))]),
  );
  $('recent').replaceChildren(gamesHead(), el('tbody', {}, ...gameRows(profile.recent, profile.username)));
  $('no-games').hidden = profile.recent.length > 0;
  $('recent').hidden = profile.recent.length === 0;
  $('all-games').href = `/games?player=${encodeURIComponent(profile.username)}`;
  document.body.dataset.loaded = 'true';
}

/** Block and report, for a signed-in reader on another player's page. */
async function mountActions(me, player) {
  if (!me || me.toLowerCase() === player.toLowerCase()) return;
  const status = (text) => {
    $('player-actions-status').textContent = text;
  };
  const block = $('block');
  let blocked = false;
  const show = () => {
    block.textContent = blocked ? t('player.unblock') : t('player.block');
    block.setAttribute('aria-pressed', String(blocked));
  };
  try {
    const { blocks } = await api('GET', '/api/me/blocks');
    blocked = blocks.some((b) => b.username.toLowerCase() === player.toLowerCase());
  } catch {
    return;
  }
  show();
  $('player-actions').hidden = false;
  block.onclick = async () => {
    try {
      await api(blocked ? 'DELETE' : 'PUT', `/api/me/blocks/${encodeURIComponent(player)}`);
      blocked = !blocked;
      show();
      status(blocked ? t('player.blocked', { who: player }) : t('player.unblocked', { who: player }));
    } catch (e) {
      status(e.message);
    }
  };
  $('report-player').onclick = () => {
    $('report-form').hidden = false;
    $('report-form').reason.focus();
  };
  $('report-form').onsubmit = async (event) => {
    event.preventDefault();
    try {
      await api('POST', '/api/reports', { username: player, reason: event.target.reason.value });
      $('report-form').hidden = true;
      status(t('player.reported'));
    } catch (e) {
      status(e.message);
    }
  };
}

const me = await mountAccount($('account'));
await load();
if (document.body.dataset.loaded) await mountActions(me, $('username').textContent);
