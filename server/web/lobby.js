// The lobby: lists public rooms that are open or live, creates rooms, joins and watches.

import { createRoom, takeSeat, api } from './api.js';

const REFRESH_MS = 3000;

function seat(view, color) {
  if (!view.taken) return `<span class="seat free">${color}: free</span>`;
  if (view.computer) return `<span class="seat online">${color}: computer (level ${view.computer})</span>`;
  return `<span class="seat ${view.connected ? 'online' : 'offline'}">${color}${view.connected ? '' : ' (away)'}</span>`;
}

function row(room) {
  const tr = document.createElement('tr');
  tr.dataset.room = room.room;
  tr.dataset.status = room.status;
  tr.innerHTML = `
    <td><a href="/room/${room.room}">${room.room.slice(0, 8)}</a></td>
    <td>${room.variant}</td>
    <td>${seat(room.players.white, 'white')} ${seat(room.players.black, 'black')}</td>
    <td class="turns">${room.turns + 1}</td>
    <td class="spectators">${room.spectators}</td>
    <td class="actions"></td>`;
  const actions = tr.querySelector('.actions');
  if (room.status === 'open') {
    const join = document.createElement('button');
    join.textContent = 'Join';
    join.className = 'join';
    join.onclick = async () => {
      try {
        await takeSeat(room.room);
        location.href = `/room/${room.room}`;
      } catch (e) {
        document.getElementById('lobby-status').textContent = e.message;
      }
    };
    actions.append(join);
  }
  const watch = document.createElement('a');
  watch.textContent = 'Watch';
  watch.className = 'button watch';
  watch.href = `/room/${room.room}?watch`;
  actions.append(watch);
  return tr;
}

async function refresh() {
  const status = document.getElementById('lobby-status');
  try {
    const lobby = await api('GET', '/api/rooms');
    document.querySelector('#rooms tbody').replaceChildren(...lobby.rooms.map(row));
    document.getElementById('no-rooms').hidden = lobby.rooms.length > 0;
    status.textContent = '';
  } catch (e) {
    status.textContent = `cannot reach the server (${e.message})`;
  }
}

document.getElementById('create').addEventListener('submit', async (event) => {
  event.preventDefault();
  const request = Object.fromEntries(new FormData(event.target));
  // The clock option reads "base+increment" in seconds; none leaves the field out.
  if (request.clock) {
    const [base, increment] = request.clock.split('+').map(Number);
    request.clock = { base, increment };
  } else delete request.clock;
  // "Play the computer" names its level; a person leaves the field out.
  if (request.computer) request.computer = Number(request.computer);
  else delete request.computer;
  try {
    const granted = await createRoom(request);
    location.href = `/room/${granted.room}`;
  } catch (e) {
    const error = document.getElementById('create-error');
    error.textContent = e.message;
    error.hidden = false;
  }
});

refresh();
setInterval(refresh, REFRESH_MS);
