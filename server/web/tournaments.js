// The tournaments, `/tournaments`: upcoming, running and finished, from
// `GET /api/tournaments`, each linking to its page; a signed-in player joins an upcoming
// one here and creates new ones with the form (the server says what it refuses).

import { api } from './api.js';
import { mountAccount } from './account.js';
import { clockOf, el, formatText, playerHref, timeControlText, tournamentHref, when } from './ui.js';
import { t } from './i18n.js';

const REFRESH_MS = 5000;
const $ = (id) => document.getElementById(id);

/** The username this page is signed in as, or null. */
let me = null;

function status(text) {
  $('tournaments-status').textContent = text;
}

/** Where a running tournament is: an arena's end, another's round. */
function runningText(tournament) {
  return tournament.ends_at ? t('tournament.until', { when: when(tournament.ends_at) }) : t('tournament.round-of', { round: tournament.round });
}

function row(tournament, section) {
  const actions = el('td', { className: 'actions' });
  if (section === 'upcoming' && me) {
    const join = el('button', { className: 'join', type: 'button' }, t('tournament.join'));
    join.onclick = async () => {
      join.disabled = true;
      try {
        await api('POST', `/api/tournaments/${encodeURIComponent(tournament.id)}/join`);
        location.href = tournamentHref(tournament.id);
      } catch (e) {
        status(e.message);
        join.disabled = false;
      }
    };
    actions.append(join);
  }
  const time = section === 'upcoming' ? when(tournament.starts_at) : section === 'running' ? runningText(tournament) : t(`tournament.state.${tournament.state}`);
  return el(
    'tr',
    { dataset: { tournament: tournament.id, state: tournament.state } },
    el('td', {}, el('a', { className: 'tournament-link', href: tournamentHref(tournament.id) }, tournament.name)),
    el('td', {}, formatText(tournament)),
    el('td', {}, t(`variant.${tournament.variant}`), ' ', timeControlText(tournament.clock), tournament.rated ? el('span', { className: 'rated-mark' }, t('game.rated')) : null),
    el('td', { className: 'players' }, t('tournament.players-of', { players: tournament.players, max: tournament.max_players })),
    el('td', {}, time),
    el('td', {}, el('a', { className: 'name player-link', href: playerHref(tournament.creator) }, tournament.creator)),
    actions,
  );
}

function head() {
  const keys = ['tournaments.name', 'tournaments.format', 'lobby.column.game', 'tournament.players', 'tournaments.when', 'tournaments.creator'];
  return el('thead', {}, el('tr', {}, ...keys.map((key) => el('th', {}, t(key))), el('th')));
}

async function refresh() {
  let list;
  try {
    list = await api('GET', '/api/tournaments');
  } catch (e) {
    status(e.message);
    return;
  }
  for (const section of ['upcoming', 'running', 'finished']) {
    const tournaments = list[section];
    $(section).replaceChildren(head(), el('tbody', {}, ...tournaments.map((x) => row(x, section))));
    $(section).hidden = tournaments.length === 0;
    $(`no-${section}`).hidden = tournaments.length > 0;
  }
  document.body.dataset.loaded = 'true';
}

/** The time `minutes` from now, to the minute, as `datetime-local` reads it (local
 * time). */
function soon(minutes) {
  const at = new Date(Date.now() + minutes * 60_000);
  at.setSeconds(0, 0);
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

const form = $('create-tournament');
form.elements.starts_at.value = soon(10);
form.elements.ends_at.value = soon(70);
form.elements.format.addEventListener('change', () => {
  // Rounds are a Swiss's only: a round robin has as many as its players need. An arena
  // lasts until its end instead.
  $('rounds-field').hidden = form.elements.format.value !== 'swiss';
  $('ends-field').hidden = form.elements.format.value !== 'arena';
});
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const fields = Object.fromEntries(new FormData(form));
  const request = {
    name: fields.name,
    format: fields.format,
    variant: fields.variant,
    clock: clockOf(fields.clock),
    rated: Boolean(fields.rated),
    starts_at: new Date(fields.starts_at).getTime(),
    min_players: Number(fields.min_players),
    max_players: Number(fields.max_players),
    rounds: fields.format === 'swiss' ? Number(fields.rounds) : undefined,
    ends_at: fields.format === 'arena' ? new Date(fields.ends_at).getTime() : undefined,
  };
  $('create-submit').disabled = true;
  try {
    const created = await api('POST', '/api/tournaments', request);
    location.href = tournamentHref(created.id);
  } catch (e) {
    status(e.message);
  } finally {
    $('create-submit').disabled = false;
  }
});

function showSignedIn() {
  form.hidden = me === null;
  $('create-sign-in').hidden = me !== null;
}

me = await mountAccount($('account'));
showSignedIn();
await refresh();
setInterval(refresh, REFRESH_MS);
