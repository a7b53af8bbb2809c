// HTTP calls, seat tokens, the session and the display name, shared by every page.
//
// The session is the `punct_session` cookie, HttpOnly: the page never sees its token.
// Requests from these pages carry it by themselves, and so does the game page's
// WebSocket.

import { t } from './i18n.js';

/** The seat token kept for `room`, if this browser holds a seat there. */
export function seatToken(room) {
  return localStorage.getItem(`punct-seat:${room}`);
}

/** Whether this browser holds a seat of `room` (as the lobby and `GET /api/rooms/{id}`
 * show it): by the seat token it keeps, or by the account `me` it is signed in to. */
export function holdsSeat(room, me) {
  return seatToken(room.room) !== null || (me !== null && ['white', 'black'].some((c) => room.players[c].account === me));
}

/** Keeps `token`, this browser's seat token of `room`. */
export function keepSeatToken(room, token) {
  localStorage.setItem(`punct-seat:${room}`, token);
}

function keepSeat(granted) {
  keepSeatToken(granted.room, granted.token);
  return granted;
}

/** An error the server answered: `code` is the protocol's error code. */
export class ApiError extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

/** Calls the HTTP API; throws an `ApiError` with the server's message when refused. */
export async function api(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    // The browser's own words for a failed request ("Failed to fetch") are English
    // and say nothing a player can act on.
    throw new ApiError('unreachable', t('api.unreachable'), 0);
  }
  // 204 No Content (signing out) has no body; an error from outside the API may have
  // one that is not JSON.
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    throw new ApiError(data?.code ?? 'http', data?.message || t('api.failed', { status: response.status }), response.status);
  }
  return data;
}

/** The display name an anonymous player chose, remembered in this browser. */
export function displayName() {
  return localStorage.getItem('punct-name') || '';
}

export function setDisplayName(name) {
  if (name.trim()) localStorage.setItem('punct-name', name.trim());
  else localStorage.removeItem('punct-name');
}

/** Adds the remembered display name to a request of an anonymous player. (A signed-in
 * player plays under their username, so theirs carries none.) */
function withName(request, signedIn) {
  const name = displayName();
  return !signedIn && name ? { ...request, name } : request;
}

/** Creates a room (`POST /api/rooms`) and keeps the creator's seat token. */
export async function createRoom(request, signedIn) {
  return keepSeat(await api('POST', '/api/rooms', withName(request, signedIn)));
}

/** Takes the free seat of `room` and keeps its token. */
export async function takeSeat(room, signedIn) {
  return keepSeat(await api('POST', `/api/rooms/${encodeURIComponent(room)}/seat`, withName({}, signedIn)));
}

// ---- the session ----------------------------------------------------------------------

/** Set while this browser believes it is signed in: a session that expired since is then
 * cleared (the server refuses a stale cookie rather than treat it as anonymous). */
const SIGNED_IN = 'punct-signed-in';

/** The username this browser is signed in as, or null. */
export async function currentUser() {
  try {
    return (await api('GET', '/api/session')).username;
  } catch (e) {
    if (e.code === 'sign-in-required' && localStorage.getItem(SIGNED_IN)) {
      // The session expired or was signed out elsewhere: drop the dead cookie, so the
      // page can act anonymously again.
      localStorage.removeItem(SIGNED_IN);
      await api('DELETE', '/api/session').catch(() => {});
    }
    return null;
  }
}

/** Registers (`create`) or signs in; the server sets the session cookie. */
export async function signIn(username, password, create) {
  const session = await api('POST', create ? '/api/accounts' : '/api/session', { username, password });
  localStorage.setItem(SIGNED_IN, '1');
  return session.username;
}

export async function signOut() {
  localStorage.removeItem(SIGNED_IN);
  await api('DELETE', '/api/session');
}
