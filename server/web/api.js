// HTTP calls and seat tokens, shared by the lobby and the game page.

/** The seat token kept for `room`, if this browser holds a seat there. */
export function seatToken(room) {
  return localStorage.getItem(`punct-seat:${room}`);
}

function keepSeat(granted) {
  localStorage.setItem(`punct-seat:${granted.room}`, granted.token);
  return granted;
}

/** Calls the HTTP API; throws an Error with the server's message when refused. */
export async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json();
  if (!response.ok) throw new Error(data.message || response.statusText);
  return data;
}

/** Creates a room (`POST /api/rooms`) and keeps the creator's seat token. */
export async function createRoom(request) {
  return keepSeat(await api('POST', '/api/rooms', request));
}

/** Takes the free seat of `room` and keeps its token. */
export async function takeSeat(room) {
  return keepSeat(await api('POST', `/api/rooms/${room}/seat`));
}
