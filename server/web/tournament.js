// A tournament's page, `/tournament/{id}`: what it is, its standings, every round's
// pairings with links to their games (a live game's move, last turn and clocks, read
// every few seconds), and the signed-in player's next game with a countdown to the
// start, as tournament-state.js works them out; this module only puts them on the page.
// The page follows the tournament over a WebSocket (protocol/PROTOCOL.md, `follow`): the
// server sends it again whenever it changes. While the socket is down, the page reads
// `GET /api/tournaments/{id}` every few seconds instead, and follows again when the
// socket is back.

import { api } from './api.js';
import { mountAccount } from './account.js';
import { followTournament, noteEntered, pairingTone } from './tournament-follow.js';
import { liveGame, liveGames, over, show, withRound } from './tournament-state.js';
import { el, formatText, playerHref, roomHref, side, timeControlText, timeLeftText, when } from './ui.js';
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

const playerLink = (username) => el('a', { className: 'name player-link', href: playerHref(username) }, username);

/** A text of tournament-state.js in words, its times and colours written as the page
 * writes them. */
function say({ key, values }) {
  const words = { ...values };
  if ('when' in values) words.when = when(values.when);
  if ('left' in values) words.left = timeLeftText(values.left);
  if ('colour' in values) words.colour = side(values.colour);
  return t(key, words);
}

function renderHead(view, shown) {
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
  $('state').textContent = say(shown.status);
  renderPodium(shown.podium);
  const { entry } = shown;
  $('entry-actions').hidden = !entry;
  $('join').hidden = !entry?.join;
  $('withdraw').hidden = !entry?.withdraw;
  if (entry?.withdraw) $('withdraw').textContent = t(entry.withdraw);
}

function renderPodium(podium) {
  $('podium').hidden = !podium;
  if (!podium) return;
  const places = podium.places.map((player, place) =>
    el('span', { className: `place place-${place + 1}` }, t(`tournament.place.${place + 1}`), ' ', playerLink(player)),
  );
  const parts = [el('strong', { id: 'winner' }, t('tournament.winner', { player: podium.winner })), ' · ', ...places.flatMap((p, i) => (i ? [' · ', p] : [p]))];
  if (podium.endedEarly) parts.push(el('span', { id: 'ended-early', className: 'note' }, t('tournament.ended-early', podium.endedEarly)));
  $('podium').replaceChildren(...parts);
}

function renderNext(next) {
  $('next-panel').hidden = !next;
  if (!next) return;
  const words = say(next.text);
  if (!next.room) return $('next').replaceChildren(words);
  $('next').replaceChildren(
    words,
    ' ',
    playerLink(next.opponent),
    ' ',
    el('a', { id: 'next-game', className: 'button play', href: roomHref(next.room) }, t('tournament.next.play')),
  );
}

function renderStandings({ columns, rows }) {
  const head = el('thead', {}, el('tr', {}, ...columns.map((key) => el('th', {}, t(key)))));
  const body = el(
    'tbody',
    {},
    ...rows.map((row) =>
      el(
        'tr',
        { dataset: { player: row.player }, className: row.me ? 'me' : '' },
        el('td', {}, String(row.place)),
        el('td', {}, playerLink(row.player), row.withdrawn ? el('span', { className: 'withdrawn' }, ' ', t(row.withdrawn)) : null),
        el('td', { className: 'score' }, row.score),
        ...(row.ties ?? []).map((tie) => el('td', {}, tie)),
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

/** A live game's move, last turn and clocks, or nothing when it was not read. */
function liveText(game) {
  const read = game.live ? live.get(game.room) : null;
  if (!read) return '';
  const { move, lastTurn, clocks } = liveGame(read, Date.now());
  const parts = [`${t('lobby.column.move')} ${move}`];
  if (lastTurn) parts.push(lastTurn);
  if (clocks) parts.push(`○ ${timeLeftText(clocks.white)} ● ${timeLeftText(clocks.black)}`);
  return parts.join(' · ');
}

/** Reads the live games again, while the tournament runs. */
async function readLive() {
  if (!tournament || tournament.state !== 'running') return;
  await Promise.all(
    liveGames(tournament).map(async (game) => {
      try {
        live.set(game.room, { summary: await api('GET', `/api/rooms/${encodeURIComponent(game.room)}`), at: Date.now() });
      } catch {
        live.delete(game.room);
      }
    }),
  );
  renderRounds(show(tournament, me, Date.now()).rounds);
}

function renderRounds(rounds) {
  $('rounds-panel').hidden = rounds.length === 0;
  const sections = rounds.map((round) =>
    el(
      'section',
      { className: 'round', dataset: { round: round.round } },
      el('h3', {}, t('tournament.round', { round: round.round })),
      el(
        'table',
        { className: 'pairings' },
        el(
          'tbody',
          {},
          ...round.games.map((game) =>
            el(
              'tr',
              { dataset: { room: game.room ?? '' } },
              el('td', {}, String(game.board)),
              el('td', { className: 'vs' }, playerLink(game.white), game.black ? [' – ', playerLink(game.black)] : null),
              el('td', { className: 'outcome' }, game.bye ? t('tournament.bye') : game.score),
              el('td', { className: 'live' }, liveText(game)),
              el('td', {}, game.link ? el('a', { className: 'game-link', href: roomHref(game.room) }, t(game.link)) : null),
            ),
          ),
        ),
      ),
      round.resting ? el('p', { className: 'resting' }, t('tournament.resting'), ' ', playerLink(round.resting)) : null,
    ),
  );
  $('rounds').replaceChildren(...sections);
}

function render() {
  if (!tournament) return;
  const shown = show(tournament, me, Date.now());
  renderHead(tournament, shown);
  renderNext(shown.next);
  renderStandings(shown.standings);
  renderRounds(shown.rounds);
  if (me !== null) noteEntered(id, shown.following);
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
      tournament = withRound(tournament, round);
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
