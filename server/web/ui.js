// Building the page from data: DOM helpers and the pieces several pages show (player
// names, ratings, results, a list of games).
//
// Whatever a player typed (names, usernames) reaches the page only as text: nodes are
// made with `createElement` and filled with `textContent` or text children, never with
// `innerHTML`.

import { KINDS, centreCount, kindIcon } from './board.js';
import { lang, t } from './i18n.js';

/** Makes an element. `props` are set as properties (`className`, `href`, `hidden`…),
 * except `dataset`, merged into the element's; `children` are nodes or strings (text). */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null) continue;
    if (key === 'dataset') Object.assign(node.dataset, value);
    else node[key] = value;
  }
  node.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

/** Fills a reserve's panel (a heading with a `small`, and `.kinds`) with `color`'s
 * `counts` by kind: buttons to pick a piece from (`tag` 'button'), or pictures where
 * nothing is picked ('span'). Answers the kinds' nodes, in reserve order. */
export function showReserve(panel, color, counts, tag = 'span') {
  panel.querySelector('small').textContent = t('room.reserve.left', { count: Object.values(counts).reduce((a, b) => a + b, 0) });
  const nodes = Object.keys(KINDS).map((kind) => {
    const node = el(tag, { className: `kind ${color}`, dataset: { kind } }, kindIcon(kind, color), ` ×${counts[kind]}`);
    node.setAttribute('aria-label', t('room.reserve.kind', { side: side(color), kind: KINDS[kind], count: counts[kind] }));
    return node;
  });
  panel.querySelector('.kinds').replaceChildren(...nodes);
  return nodes;
}

/** The page of the account `username`. */
export function playerHref(username) {
  return `/player/${encodeURIComponent(username)}`;
}

/** A time control (`{base, increment}` or `{days}`) as players read it. */
export function timeControlText(clock) {
  if (!clock) return '—';
  if (clock.days) return t('clock.days', { count: clock.days });
  const minutes = clock.base % 60 === 0 ? `${clock.base / 60} min` : `${clock.base} s`;
  return clock.increment ? `${minutes} + ${clock.increment} s` : minutes;
}

/** Time left as players read it: days and hours, hours and minutes, or m:ss. */
export function timeLeftText(ms) {
  const hour = 3_600_000;
  if (ms >= 24 * hour) return t('time.days-hours', { days: Math.floor(ms / (24 * hour)), hours: Math.floor((ms % (24 * hour)) / hour) });
  if (ms >= hour) return `${Math.floor(ms / hour)} h ${Math.floor((ms % hour) / 60_000)} min`;
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

export function roomHref(room) {
  return `/room/${encodeURIComponent(room)}`;
}

/** The page of tournament `id`. */
export function tournamentHref(id) {
  return `/tournament/${encodeURIComponent(id)}`;
}

/** The mark of a tournament's game, where games are listed: a link to its tournament,
 * or nothing for a game of no tournament. */
export function tournamentMark(tournament) {
  if (!tournament) return null;
  return el('a', { className: 'tournament-mark', href: tournamentHref(tournament) }, t('game.tournament'));
}

/** A tournament's format in words, with a Swiss's rounds. */
export function formatText(tournament) {
  const format = t(`format.${tournament.format}`);
  if (!tournament.rounds) return format;
  return t('tournament.format-rounds', { format, count: tournament.rounds });
}

/** A clock option of the forms ("base+increment" in seconds, "Nd" for days a move, ""
 * for none) as the API takes it: `{base, increment}`, `{days}`, or undefined. */
export function clockOf(option) {
  if (!option) return undefined;
  if (option.endsWith('d')) return { days: Number(option.slice(0, -1)) };
  const [base, increment] = option.split('+').map(Number);
  return { base, increment };
}

/** Who plays a seat (`{name?, account?}`): a link to their page when an account holds
 * it, the name they gave otherwise, `fallback` when they gave none. */
export function playerNode(player, fallback = t('player.anonymous')) {
  if (player?.account) {
    return el('a', { className: 'name player-link', href: playerHref(player.account) }, player.name || player.account);
  }
  if (player?.name) return el('span', { className: 'name' }, computerName(player.name) ?? player.name);
  return el('span', { className: 'name anonymous' }, fallback);
}

/** The server's name for its computer seat, `Computer (level N)` (kept as it is in
 * records and the archive), in the page's language; none for another name. */
export function computerName(name) {
  const level = /^Computer \(level (\d+)\)$/.exec(name)?.[1];
  return level === undefined ? undefined : t('computer.name', { level });
}

/** Why the rules refuse a turn, in the page's language, from the `rule` and `args` the
 * server's `error` and the rules module's `check` give (protocol/PROTOCOL.md, error);
 * `fallback`, the message as sent, for a rule the catalogue does not know or a server
 * that sends no `args`. */
export function refusalText(rule, args, fallback) {
  const key = `illegal.${rule}`;
  if (!rule || args === undefined || t(key) === key) return fallback;
  const kind = args?.kind === undefined ? {} : { kind: t(`kind.${args.kind}`) };
  return t(`illegal.${rule}`, { ...args, ...kind });
}

/** `label` followed by a colon, as the language writes it (French puts a space
 * before). */
export function labelled(label) {
  return t('ui.label', { label });
}

/** A rating as players read it: rounded, `?` while provisional. */
export function ratingText(rating) {
  return `${Math.round(rating.rating)}${rating.provisional ? '?' : ''}`;
}

/** A rating change with its sign: `+162`, `−12`, `±0`. */
export function changeText(before, after) {
  return signedText(Math.round(after.rating) - Math.round(before.rating));
}

/** Whole points of a rating change with their sign: `+162`, `−12`, `±0`. */
export function signedText(diff) {
  if (diff === 0) return '±0';
  return diff > 0 ? `+${diff}` : `−${-diff}`;
}

/** A colour (`white`, `black`) as the name of its player: `White`. */
export function side(color) {
  return t(`side.${color}`);
}

/** Turn `n` (from 1) as players count it: the move and who played it, `2. Black`. */
export function turnName(n) {
  return `${Math.ceil(n / 2)}. ${side(n % 2 ? 'white' : 'black')}`;
}

/** Why a game ended (`connection`, `time`…), in words. */
export function reasonText(reason) {
  return t(`reason.${reason}`);
}

/** An outcome (`{result, winner?, reason}`) in words; given the final position's
 * `board`, a count of the centre says how many dots each player had there. */
export function outcomeText(outcome, board) {
  const counted = board && ['centre', 'centre-tie'].includes(outcome.reason);
  if (counted) {
    const count = centreCount(board);
    if (outcome.result === 'win') {
      const loser = outcome.winner === 'white' ? 'black' : 'white';
      return t('outcome.centre-win', { winner: side(outcome.winner), won: count[outcome.winner], lost: count[loser] });
    }
    return t('outcome.centre-draw', { white: count.white, black: count.black });
  }
  if (outcome.result === 'win') return t('outcome.win', { winner: side(outcome.winner), reason: reasonText(outcome.reason) });
  return t('outcome.draw', { reason: reasonText(outcome.reason) });
}

/** How many legal turns start as typed, said as a sentence (`n` > 0). */
export function startingText(n) {
  return t('input.starting', { count: n });
}

/** A date and time as the page's language writes them, from milliseconds since the
 * epoch. */
export function when(ms) {
  return new Date(ms).toLocaleString(lang, { dateStyle: 'medium', timeStyle: 'short' });
}

/** The rows of a list of archived games (`ArchivedGame`), as a table's body. With
 * `player`, each row says how that account fared. */
export function gameRows(games, player) {
  return games.map((game) => {
    const is = (seat) => Boolean(player && seat.account && seat.account.toLowerCase() === player.toLowerCase());
    const mine = is(game.white) ? 'white' : is(game.black) ? 'black' : null;
    let result = outcomeText(game.outcome);
    let kind = 'other';
    if (mine) {
      kind = game.outcome.result === 'draw' ? 'draw' : game.outcome.winner === mine ? 'win' : 'loss';
      result = t(`result.${kind}`, { reason: reasonText(game.outcome.reason) });
    }
    return el(
      'tr',
      { dataset: { room: game.room } },
      el('td', {}, when(game.finished_at)),
      el('td', {}, t(`variant.${game.variant}`), game.rated ? el('span', { className: 'rated-mark' }, t('game.rated')) : null, tournamentMark(game.tournament)),
      el('td', { className: 'vs' }, playerNode(game.white), ' – ', playerNode(game.black)),
      el('td', { className: `result ${kind}` }, result),
      el('td', { className: 'turns' }, String(game.turns)),
      el(
        'td',
        { className: 'links' },
        el('a', { className: 'replay', href: roomHref(game.room) }, t('games.replay')),
        ' · ',
        el('a', { className: 'record', href: `/api/rooms/${encodeURIComponent(game.room)}/record.txt`, download: '' }, t('games.record')),
        ' · ',
        el('a', { className: 'analyse', href: `/analysis?room=${encodeURIComponent(game.room)}` }, t('games.analyse')),
      ),
    );
  });
}

/** The head of a table of `gameRows`. */
export function gamesHead() {
  return el('thead', {}, el('tr', {}, ...['games.ended', 'lobby.column.game', 'games.players', 'games.result', 'games.turns'].map((key) => el('th', {}, t(key))), el('th')));
}

/** Installs the service worker (sw.js), which keeps the site for use without a network
 * and makes it installable as an app. A browser without service workers, or a page not
 * served over HTTPS or from localhost, goes on without. */
export function installApp() {
  navigator.serviceWorker?.register('/sw.js').catch(() => {});
}
