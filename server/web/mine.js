// My games, `/mine`: the signed-in player's unfinished games from `GET /api/me/games`,
// those waiting for their move first; their mail settings; and, when the browser allows
// it, a notification when a game comes to wait for their move while the page is open.

import { api } from './api.js';
import { mountAccount } from './account.js';
import { el, playerNode, roomHref, side, timeControlText, timeLeftText, tournamentMark } from './ui.js';
import { t } from './i18n.js';

const REFRESH_MS = 30_000;
const $ = (id) => document.getElementById(id);

/** The rooms that waited for my move at the last look: a new one is news. */
let waiting = null;

function row(game) {
  const { summary, color } = game;
  const opponent = summary.players[color === 'white' ? 'black' : 'white'];
  const state = t(summary.status === 'open' ? 'mine.state.open' : game.your_move ? 'mine.state.yours' : 'mine.state.theirs');
  return el(
    'tr',
    { className: game.your_move ? 'your-move' : '', dataset: { room: summary.room } },
    el('td', { className: 'state' }, state),
    el('td', {}, opponent.taken ? playerNode(opponent, t('player.guest')) : t('mine.nobody-yet')),
    el('td', {}, side(color)),
    el('td', {}, t(`variant.${summary.variant}`), tournamentMark(summary.tournament)),
    el('td', {}, timeControlText(summary.clock)),
    el('td', { className: 'left' }, game.time_left_ms == null ? '' : timeLeftText(game.time_left_ms)),
    el('td', {}, el('a', { className: 'button play', href: roomHref(summary.room) }, t('analysis.play'))),
  );
}

async function refresh() {
  let mine;
  try {
    mine = await api('GET', '/api/me/games');
  } catch (e) {
    $('mine-status').textContent = e.status === 401 ? '' : e.message;
    $('sign-in-first').hidden = e.status !== 401;
    return;
  }
  $('mine-status').textContent = '';
  document.querySelector('#mine tbody').replaceChildren(...mine.games.map(row));
  $('no-games').hidden = mine.games.length > 0;
  const now = mine.games.filter((g) => g.your_move).map((g) => g.summary.room);
  // The tab's title counts the games that wait, for a player whose tab is elsewhere.
  document.title = now.length ? t('mine.title.waiting', { count: now.length }) : t('title.mine');
  if (waiting !== null && now.some((room) => !waiting.includes(room)) && document.hidden) {
    if ('Notification' in window && Notification.permission === 'granted') {
      new Notification(t('mine.notification'), { body: t('mine.notification.body') });
    }
  }
  waiting = now;
}

async function loadMail() {
  try {
    const settings = await api('GET', '/api/me/notifications');
    $('email').value = settings.email ?? '';
    $('mode').value = settings.mode;
    $('mail-panel').hidden = false;
  } catch {
    $('mail-panel').hidden = true;
  }
}

$('mail').addEventListener('submit', async (event) => {
  event.preventDefault();
  const email = $('email').value.trim();
  try {
    await api('PUT', '/api/me/notifications', { email: email || undefined, mode: $('mode').value });
    $('mail-status').textContent = t('mine.saved');
  } catch (e) {
    $('mail-status').textContent = e.message;
  }
});

if ('Notification' in window && Notification.permission === 'default') {
  $('browser-notify').hidden = false;
  $('browser-notify').onclick = async () => {
    await Notification.requestPermission();
    $('browser-notify').hidden = true;
  };
}

await mountAccount($('account'), () => {
  refresh();
  loadMail();
});
refresh();
loadMail();
setInterval(refresh, REFRESH_MS);
