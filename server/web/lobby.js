// The lobby: lists public rooms that are open or live, creates rooms, joins and watches.

import { createRoom, takeSeat, api, displayName, setDisplayName, holdsSeat } from './api.js';
import { mountAccount } from './account.js';
import { clockOf, el, installApp, playerNode, roomHref, side, timeControlText, tournamentMark } from './ui.js';
import { t } from './i18n.js';
import { seek } from './seek.js';

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
    view.rating ? el('span', { className: 'rating' }, ` (${view.rating})`) : null,
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
    // Rooms are shown by their players, never by an id. Each cell names its column too,
    // for a phone's layout, where rows are cards.
    el('td', { dataset: { label: t('lobby.column.game') } }, t(`variant.${room.variant}`), room.rated ? el('span', { className: 'rated-mark' }, t('game.rated')) : null, tournamentMark(room.tournament)),
    el('td', { className: 'clock', dataset: { label: t('lobby.column.clock') } }, timeControlText(room.clock)),
    el('td', { className: 'seats' }, seat(room.players.white, 'white'), ' ', seat(room.players.black, 'black')),
    el('td', { className: 'turns', dataset: { label: t('lobby.column.move') } }, String(Math.floor(room.turns / 2) + 1)),
    el('td', { className: 'spectators', dataset: { label: t('lobby.column.watching') } }, String(room.spectators)),
    actions,
  );
}

/** Cancels the seek under way, if any. */
let cancelSeek = null;

/** Seeks `clock` (as the clock options write it) in the variant chosen. */
function startSeek(option) {
  cancelSeek?.();
  const game = { variant: $('quick-variant').value, clock: clockOf(option) };
  if (me && $('quick-rated').checked) game.rated = true;
  const text = $('seeking-text');
  text.textContent = t('lobby.seeking', { clock: timeControlText(game.clock) });
  $('seeking').hidden = false;
  cancelSeek = seek(game, me !== null, {
    waiting: () => {},
    paired: (room) => {
      location.href = roomHref(room);
    },
    ended: () => {
      cancelSeek = null;
      text.textContent = t('lobby.seek.expired');
    },
    failed: (message) => {
      cancelSeek = null;
      text.textContent = message;
    },
  });
}

$('seek-cancel').addEventListener('click', () => {
  cancelSeek?.();
  cancelSeek = null;
  $('seeking').hidden = true;
});
for (const button of document.querySelectorAll('#quick-grid button')) {
  button.addEventListener('click', () => startSeek(button.dataset.clock));
}

/** Starts a game against the server's computer at `level`, in the variant chosen above,
 * with no clock: the page of its room opens. */
async function playComputer(level) {
  const request = { variant: $('quick-variant').value, color: 'random', computer: level, visibility: 'public' };
  try {
    const granted = await createRoom(request, me !== null);
    location.href = roomHref(granted.room);
  } catch (e) {
    $('lobby-status').textContent = e.message;
  }
}

for (let level = 1; level <= 5; level++) {
  const button = el('button', { type: 'button', dataset: { level } }, t('lobby.computer.level', { level }));
  button.addEventListener('click', () => playComputer(level));
  $('computer-grid').append(button);
}

/** The option of the clock `clock`, as the grid and the form write it. */
function optionOf(clock) {
  return clock.days ? `${clock.days}d` : `${clock.base}+${clock.increment}`;
}

function seekRow(open) {
  const meet = el('button', { className: 'join' }, t('lobby.join'));
  meet.onclick = () => {
    $('quick-variant').value = open.game.variant;
    $('quick-rated').checked = Boolean(open.game.rated);
    startSeek(optionOf(open.game.clock));
  };
  if (open.game.rated && !me) meet.disabled = true;
  return el(
    'tr',
    { dataset: { seek: open.seek } },
    el('td', { dataset: { label: t('lobby.column.player') } }, playerNode(open.player)),
    el('td', { dataset: { label: t('lobby.column.rating') } }, open.rating ? String(open.rating) : '—'),
    el('td', { dataset: { label: t('lobby.column.game') } }, t(`variant.${open.game.variant}`), open.game.rated ? el('span', { className: 'rated-mark' }, t('game.rated')) : null),
    el('td', { className: 'clock', dataset: { label: t('lobby.column.clock') } }, timeControlText(open.game.clock)),
    el('td', { className: 'actions' }, meet),
  );
}

async function refresh() {
  const status = $('lobby-status');
  try {
    const [lobby, seeks] = await Promise.all([api('GET', '/api/rooms'), api('GET', '/api/seeks')]);
    document.querySelector('#seeks tbody').replaceChildren(...seeks.seeks.map(seekRow));
    $('no-seeks').hidden = seeks.seeks.length > 0;
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
  $('quick-rated-field').hidden = me === null;
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
