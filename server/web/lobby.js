// The lobby: lists public rooms that are open or live, creates rooms, joins and watches.

import { createRoom, takeSeat, api, displayName, setDisplayName, holdsSeat } from './api.js';
import { mountAccount } from './account.js';
import { clockOf, el, installApp, playerNode, roomHref, side, timeControlText, tournamentMark } from './ui.js';
import { t } from './i18n.js';

const REFRESH_MS = 3000;
const $ = (id) => document.getElementById(id);

/** The username this page is signed in as, or null. */
let me = null;

function seat(view, color) {
  if (!view.taken) return el('span', { className: 'seat free' }, t('lobby.seat.free', { colour: side(color) }));
  const state = view.computer || view.connected ? 'online' : 'offline';
  // A player who gave no name is shown by their colour alone.
  const named = view.name || view.account;
  return el(
    'span',
    { className: `seat ${state}`, dataset: { color } },
    named ? t('lobby.seat.named', { colour: side(color) }) : side(color),
    named ? playerNode(view) : null,
    view.computer || view.connected ? '' : t('lobby.seat.away'),
  );
}

function row(room) {
  const actions = el('td', { className: 'actions' });
  if (holdsSeat(room, me)) {
    // The game page takes the seat back, by its token or by the account.
    actions.append(el('a', { className: 'button play', href: roomHref(room.room) }, t('lobby.your-seat')), ' ');
  } else if (room.status === 'open') {
    const join = el('button', { className: 'join' }, t('lobby.join'));
    if (room.rated && !me) {
      join.disabled = true;
      join.title = t('lobby.join.sign-in');
    }
    join.onclick = async () => {
      try {
        await takeSeat(room.room, me !== null);
        location.href = roomHref(room.room);
      } catch (e) {
        $('lobby-status').textContent = e.message;
      }
    };
    actions.append(join, ' ');
  }
  actions.append(el('a', { className: 'button watch', href: `${roomHref(room.room)}?watch` }, t('lobby.watch')));
  return el(
    'tr',
    { dataset: { room: room.room, status: room.status } },
    // A UUIDv7 begins with its time, the same for rooms made together: show its random end.
    // Each cell names its column too, for a phone's layout, where rows are cards.
    el('td', { dataset: { label: t('lobby.column.room') } }, el('a', { href: roomHref(room.room) }, room.room.slice(-8))),
    el('td', { dataset: { label: t('lobby.column.game') } }, t(`variant.${room.variant}`), room.rated ? el('span', { className: 'rated-mark' }, t('game.rated')) : null, tournamentMark(room.tournament)),
    el('td', { className: 'clock', dataset: { label: t('lobby.column.clock') } }, timeControlText(room.clock)),
    el('td', { className: 'seats' }, seat(room.players.white, 'white'), ' ', seat(room.players.black, 'black')),
    el('td', { className: 'turns', dataset: { label: t('lobby.column.move') } }, String(Math.floor(room.turns / 2) + 1)),
    el('td', { className: 'spectators', dataset: { label: t('lobby.column.watching') } }, String(room.spectators)),
    actions,
  );
}

async function refresh() {
  const status = $('lobby-status');
  try {
    const lobby = await api('GET', '/api/rooms');
    // Games over days have a section of their own: nobody waits at their board.
    const slow = lobby.rooms.filter((room) => room.clock?.days);
    const live = lobby.rooms.filter((room) => !room.clock?.days);
    document.querySelector('#rooms tbody').replaceChildren(...live.map(row));
    document.querySelector('#correspondence tbody').replaceChildren(...slow.map(row));
    $('no-rooms').hidden = live.length > 0;
    $('no-correspondence').hidden = slow.length > 0;
    status.textContent = '';
  } catch (e) {
    // Not reached at all says so itself; any other failure is told as the server's.
    status.textContent = e.code === 'unreachable' ? e.message : t('lobby.unreachable', { why: e.message });
  }
}

/** Shows the form as it is for the signed-in player or for an anonymous one. */
function showSignedIn() {
  $('name-field').hidden = me !== null;
  $('playing-as').hidden = me === null;
  $('playing-as').textContent = me ? t('lobby.playing-as', { username: me }) : '';
  $('rated-field').hidden = me === null;
  $('my-games-link').hidden = me === null;
  if (!me) $('rated').checked = false;
  updateRated();
}

/** The computer plays no rated games. */
function updateRated() {
  const computer = document.querySelector('select[name=computer]').value !== '';
  $('rated').disabled = computer;
  if (computer) $('rated').checked = false;
}

document.querySelector('select[name=computer]').addEventListener('change', updateRated);

$('display-name').value = displayName();
$('display-name').addEventListener('input', (event) => setDisplayName(event.target.value));

$('create').addEventListener('submit', async (event) => {
  event.preventDefault();
  setDisplayName($('display-name').value);
  const request = Object.fromEntries(new FormData(event.target));
  // The name goes with every request of an anonymous player (`createRoom`).
  delete request.name;
  // No clock leaves the field out.
  request.clock = clockOf(request.clock);
  // "Play the computer" names its level; a person leaves the field out.
  if (request.computer) request.computer = Number(request.computer);
  else delete request.computer;
  if (request.rated) request.rated = true;
  try {
    const granted = await createRoom(request, me !== null);
    location.href = roomHref(granted.room);
  } catch (e) {
    const error = $('create-error');
    error.textContent = e.message;
    error.hidden = false;
  }
});

installApp();
me = await mountAccount($('account'), (username) => {
  me = username;
  showSignedIn();
  refresh();
});
showSignedIn();
refresh();
setInterval(refresh, REFRESH_MS);
