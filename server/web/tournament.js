// A tournament's page, `/tournament/{id}`: what it is, its standings, every round's
// pairings with links to their games (a live game's move, last turn and clocks, read
// every few seconds), and the signed-in player's next game with a countdown to the start. The page follows the tournament over a WebSocket
// (protocol/PROTOCOL.md, `follow`): the server sends it again whenever it changes. While
// the socket is down, the page reads `GET /api/tournaments/{id}` every few seconds
// instead, and follows again when the socket is back.

import { api } from './api.js';
import { mountAccount } from './account.js';
import { followTournament, noteEntered, pairingTone } from './tournament-follow.js';
import { el, formatText, nextGame, playerHref, roomHref, side, timeControlText, timeLeftText, when } from './ui.js';
import { t } from './i18n.js';

/** How often the page reads the tournament while it cannot follow it. */
const REFRESH_MS = 3000;
/** How often the page reads its live games' moves and clocks. */
const LIVE_MS = 2000;
const $ = (id) => document.getElementById(id);
const id = decodeURIComponent(location.pathname.split('/')[2] || '');
const path = `/api/tournaments/${encodeURIComponent(id)}`;

/** The username this page is signed in as, or null. */
let me = null;
/** The tournament as last read. */
let tournament = null;

const over = (view) => view.state === 'finished' || view.state === 'cancelled';
/** An arena under way: players join, pause (withdraw) and come back while it runs. */
const arenaRunning = (view) => view.format === 'arena' && view.state === 'running';
const playerLink = (username) => el('a', { className: 'name player-link', href: playerHref(username) }, username);

/** A game's result as a score: 1–0, 0–1, ½–½; a bye's as +. */
function scoreText(game) {
  if (!game.black) return t('tournament.bye');
  if (!game.outcome) return '';
  if (game.outcome.result === 'draw') return '½–½';
  return game.outcome.winner === 'white' ? '1–0' : '0–1';
}

/** A score with its halves: 2½. */
function points(score) {
  const whole = Math.floor(score);
  const half = score - whole >= 0.5 ? '½' : '';
  return whole === 0 && half ? half : `${whole}${half}`;
}

/** Whether `me` is entered and not withdrawn. */
function entered(view) {
  return me !== null && view.entries.some((e) => e.player === me && !e.withdrawn);
}

function renderHead(view) {
  document.title = t('title.tournament-of', { name: view.name });
  $('name').textContent = view.name;
  const facts = [
    formatText(view),
    ' · ',
    t(`variant.${view.variant}`),
    ' · ',
    view.clock ? timeControlText(view.clock) : t('room.no-clock'),
    view.rated ? el('span', { className: 'rated-mark' }, t('game.rated')) : '',
    ' · ',
    t('tournament.players-of', { players: view.players, max: view.max_players }),
    ' · ',
    t('tournament.created-by'),
    ' ',
    playerLink(view.creator),
  ];
  $('facts').replaceChildren(...facts);
  $('state').dataset.state = view.state;
  if (view.state === 'upcoming') {
    const left = Math.max(0, view.starts_at - Date.now());
    $('state').textContent = t('tournament.starts-in', { when: when(view.starts_at), left: timeLeftText(left) });
  } else if (arenaRunning(view)) {
    const left = Math.max(0, view.ends_at - Date.now());
    $('state').textContent = t('tournament.ends-in', { when: when(view.ends_at), left: timeLeftText(left) });
  } else if (view.state === 'running') {
    $('state').textContent = view.rounds ? t('tournament.round-of-rounds', { round: view.round, rounds: view.rounds }) : t('tournament.round-of', { round: view.round });
  } else {
    $('state').textContent = t(`tournament.state.${view.state}`);
  }
  renderPodium(view);
  const mine = entered(view);
  const open = view.state === 'upcoming' || arenaRunning(view);
  $('entry-actions').hidden = me === null || !(open || (view.state === 'running' && mine));
  $('join').hidden = !open || mine;
  $('withdraw').hidden = !mine;
  $('withdraw').textContent = arenaRunning(view) ? t('tournament.pause') : t('tournament.withdraw');
}

/** A finished tournament's winner and podium, and, for a Swiss that stopped before its
 * last round, why: no round could be paired without two players meeting again. */
function renderPodium(view) {
  const podium = $('podium');
  podium.hidden = view.state !== 'finished' || view.standings.length === 0;
  if (podium.hidden) return;
  const places = view.standings.slice(0, 3).map((row, place) =>
    el('span', { className: `place place-${place + 1}` }, t(`tournament.place.${place + 1}`), ' ', playerLink(row.player)),
  );
  const parts = [el('strong', { id: 'winner' }, t('tournament.winner', { player: view.standings[0].player })), ' · ', ...places.flatMap((p, i) => (i ? [' · ', p] : [p]))];
  if (view.format === 'swiss' && view.rounds && view.pairings.length < view.rounds) {
    parts.push(el('span', { id: 'ended-early', className: 'note' }, t('tournament.ended-early', { round: view.pairings.length, rounds: view.rounds })));
  }
  podium.replaceChildren(...parts);
}

function renderNext(view) {
  const found = me === null ? null : nextGame(view, me);
  // A player who paused an arena plays out the game they were in.
  const playing = found !== null && found.game.black && !found.game.outcome;
  $('next-panel').hidden = over(view) || !(entered(view) || playing);
  if ($('next-panel').hidden) return;
  if (view.state === 'upcoming' || !found) {
    const left = Math.max(0, view.starts_at - Date.now());
    $('next').replaceChildren(t('tournament.next.starts-in', { left: timeLeftText(left) }));
    return;
  }
  const { round, game } = found;
  if (!game.black) {
    $('next').replaceChildren(t('tournament.next.bye', { round }));
  } else if (game.outcome) {
    $('next').replaceChildren(t(view.format === 'arena' ? 'tournament.next.pool' : 'tournament.next.waiting'));
  } else {
    const colour = game.white === me ? 'white' : 'black';
    const opponent = colour === 'white' ? game.black : game.white;
    $('next').replaceChildren(
      t('tournament.next.game', { round, colour: side(colour) }),
      ' ',
      playerLink(opponent),
      ' ',
      el('a', { id: 'next-game', className: 'button play', href: roomHref(game.room) }, t('tournament.next.play')),
    );
  }
}

function renderStandings(view) {
  const withdrawn = new Set(view.entries.filter((e) => e.withdrawn).map((e) => e.player));
  // Before the first round, the players in the order they joined, with no score yet.
  const rows = view.standings.length > 0 ? view.standings : view.entries.filter((e) => !e.withdrawn).map((e) => ({ player: e.player, score: 0, games: 0 }));
  // An arena ranks by its points alone: no tie-breaks.
  const ties = view.format !== 'arena';
  const columns = ['tournament.place', 'tournament.player', 'tournament.score', ...(ties ? ['tournament.buchholz', 'tournament.sonneborn-berger'] : []), 'tournament.games'];
  const head = el('thead', {}, el('tr', {}, ...columns.map((key) => el('th', {}, t(key)))));
  const body = el(
    'tbody',
    {},
    ...rows.map((row, index) =>
      el(
        'tr',
        { dataset: { player: row.player }, className: row.player === me ? 'me' : '' },
        el('td', {}, String(index + 1)),
        el('td', {}, playerLink(row.player), withdrawn.has(row.player) ? el('span', { className: 'withdrawn' }, ' ', t(view.format === 'arena' ? 'tournament.paused' : 'tournament.withdrawn')) : null),
        el('td', { className: 'score' }, points(row.score)),
        ties ? el('td', {}, row.buchholz === undefined ? '' : points(row.buchholz)) : null,
        ties ? el('td', {}, row.sonneborn_berger === undefined ? '' : points(row.sonneborn_berger)) : null,
        el('td', {}, String(row.games)),
      ),
    ),
  );
  $('standings').replaceChildren(head, body);
  $('standings').hidden = rows.length === 0;
  $('no-players').hidden = rows.length > 0;
}

/** The live games of the tournament as last read (`GET /api/rooms/{id}`): by room, the
 * summary and when it was read. */
const live = new Map();
/** The live games whose moves and clocks the page shows (the first boards). */
const LIVE_GAMES = 16;

/** A live game's move, last turn and clocks, the running one counted down since read. */
function liveText(game) {
  const read = game.outcome || !game.black ? null : live.get(game.room);
  if (!read) return '';
  const { summary, at } = read;
  const parts = [`${t('lobby.column.move')} ${Math.floor(summary.turns / 2) + 1}`];
  if (summary.last_turn) parts.push(summary.last_turn);
  const clocks = summary.clocks;
  if (clocks) {
    const left = (color) => Math.max(0, clocks[`${color}_ms`] - (clocks.running === color ? Date.now() - at : 0));
    parts.push(`○ ${timeLeftText(left('white'))} ● ${timeLeftText(left('black'))}`);
  }
  return parts.join(' · ');
}

/** Reads the live games again, while the tournament runs. */
async function readLive() {
  if (!tournament || tournament.state !== 'running') return;
  const games = tournament.pairings.flatMap((round) => round.games).filter((game) => game.room && game.black && !game.outcome);
  await Promise.all(
    games.slice(0, LIVE_GAMES).map(async (game) => {
      try {
        live.set(game.room, { summary: await api('GET', `/api/rooms/${encodeURIComponent(game.room)}`), at: Date.now() });
      } catch {
        live.delete(game.room);
      }
    }),
  );
  renderRounds(tournament);
}

function renderRounds(view) {
  $('rounds-panel').hidden = view.pairings.length === 0;
  const rounds = [...view.pairings].reverse().map((round) =>
    el(
      'section',
      { className: 'round', dataset: { round: round.round } },
      // An arena's rounds are the times its pool was paired: "round" to everyone, as the
      // player's own "your next game" says.
      el('h3', {}, t('tournament.round', { round: round.round })),
      el(
        'table',
        { className: 'pairings' },
        el(
          'tbody',
          {},
          ...round.games.map((game, board) =>
            el(
              'tr',
              { dataset: { room: game.room ?? '' } },
              el('td', {}, String(board + 1)),
              el('td', { className: 'vs' }, playerLink(game.white), game.black ? [' – ', playerLink(game.black)] : null),
              el('td', { className: 'outcome' }, scoreText(game)),
              el('td', { className: 'live' }, liveText(game)),
              el('td', {}, game.room ? el('a', { className: 'game-link', href: roomHref(game.room) }, game.outcome ? t('games.replay') : t('tournament.game')) : null),
            ),
          ),
        ),
      ),
      // A round robin's odd player out plays nobody this round, and scores nothing.
      round.resting ? el('p', { className: 'resting' }, t('tournament.resting'), ' ', playerLink(round.resting)) : null,
    ),
  );
  $('rounds').replaceChildren(...rounds);
}

function render() {
  if (!tournament) return;
  renderHead(tournament);
  renderNext(tournament);
  renderStandings(tournament);
  renderRounds(tournament);
  // Every other page of the site follows it for its player's calls (site-nav.js).
  if (me !== null) noteEntered(id, entered(tournament) && !over(tournament));
  document.body.dataset.loaded = 'true';
}

/** Reads the tournament again; true while there is more to follow. */
async function refresh() {
  try {
    tournament = await api('GET', path);
    $('tournament-error').hidden = true;
  } catch (e) {
    $('tournament-error').textContent = e.code === 'no-such-tournament' ? t('tournament.none') : e.message;
    $('tournament-error').hidden = false;
    return e.code !== 'no-such-tournament';
  }
  render();
  return !over(tournament);
}

/** Follows the tournament over a WebSocket until it is over; the socket lost, reads it
 * over HTTP until a new one follows again. A round that pairs this player takes the
 * page to the game. */
function follow() {
  const following = followTournament(id, {
    tournament(view) {
      document.body.dataset.following = 'true';
      tournament = view;
      render();
      if (over(tournament)) following.close();
    },
    round(round) {
      if (!tournament) return;
      // The round as paired; the standings come with the next `tournament`.
      const rounds = tournament.pairings.filter((r) => r.round !== round.round);
      tournament = { ...tournament, state: 'running', round: Math.max(tournament.round, round.round), pairings: [...rounds, round].sort((a, b) => a.round - b.round) };
      render();
    },
    game(game, paired) {
      // A game under way when the page opened is offered (the Play link of "Your next
      // game"); one paired just now is where the player goes.
      if (!paired) return;
      pairingTone();
      document.body.dataset.goingTo = game.room;
      location.assign(roomHref(game.room));
    },
    gone() {},
    async closed() {
      delete document.body.dataset.following;
      if (tournament && over(tournament)) return;
      // Caught up over HTTP, then followed again.
      const more = await refresh();
      if (more) setTimeout(follow, REFRESH_MS);
    },
  });
}

/** Joins or withdraws (`action`), showing the server's refusal if it refuses. */
async function entry(action) {
  $('entry-status').textContent = '';
  try {
    tournament = await api('POST', `${path}/${action}`);
    render();
  } catch (e) {
    $('entry-status').textContent = e.message;
  }
}

$('join').onclick = () => entry('join');
$('withdraw').onclick = () => entry('withdraw');

me = await mountAccount($('account'));
if (await refresh()) {
  follow();
  // The countdowns and the live games' clocks move every second.
  setInterval(() => tournament && (tournament.state === 'upcoming' || tournament.state === 'running') && render(), 1000);
  setInterval(readLive, LIVE_MS);
}
