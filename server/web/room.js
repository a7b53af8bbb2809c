// The game page: plays or watches one room over the WebSocket protocol. This module wires
// the parts together; each is a module of its own:
// - room-session.js, the connection: hello, entering, coming back with `since`;
// - room-state.js, the room as the server told it: `apply(state, message)`, pure;
// - room-input.js, what the user does (picking, placing, keys, actions) as requests;
// - room-view.js, what the page shows (board, clocks, panels, chat, alerts).
//
// Legality is decided by the server's own rules engine, run in the page (engine.js):
// the page finds the legal turns when it is the player's move, and a turn is sent only if
// it is among them; picking a piece and a destination filters that list, and a typed turn
// that is not in it is explained. The page then asks the server for no lists. Positions
// after each turn and for stepping back come from the engine too. Without the engine (a
// server built without it) the page takes the lists from the server (`legal_turns`) and
// the positions from `/api/rooms/{id}/position/{n}`.
//
// A player joins with the seat token this browser keeps; a signed-in player whose account
// holds a seat joins without one, from any browser.

import { seatToken, api } from './api.js';
import { mountAccount } from './account.js';
import { timeControlText, tournamentHref } from './ui.js';
import { followTournament, pairingTone } from './tournament-follow.js';
import { t } from './i18n.js';
import { loadEngine } from './engine.js';
import { initial, apply, withPosition, withNames, myColor } from './room-state.js';
import { openSession } from './room-session.js';
import { newUi, createInput } from './room-input.js';
import { createView } from './room-view.js';

const roomId = decodeURIComponent(location.pathname.split('/')[2] || '');
const summaryPath = `/api/rooms/${encodeURIComponent(roomId)}`;

/** The connection, once the page knows how to enter the room. */
let session = null;

/** What the parts share: the room as told (`state`, replaced by each message) and what
 * the user is doing (`ui`), with the questions several parts ask. */
const page = {
  roomId,
  /** The rules engine, or null: then the server sends the lists of legal turns. */
  engine: null,
  /** The username this page is signed in as, or null. */
  user: null,
  /** The tournament whose game this is, or null. */
  tournament: null,
  /** Once this game of a tournament is over: the room of the player's next game there,
   * when it is paired. */
  nextGame: null,
  state: initial(),
  ui: newUi(),

  /** This player's legal turns now, or null when it is not their move. */
  legal() {
    return page.engine ? engineLegal() : page.state.legal;
  },

  /** Whether the user may pick and place a piece now. */
  canPlay() {
    const { state, ui } = page;
    return (
      page.legal() !== null &&
      ui.view === null &&
      ui.pending === null &&
      state.boardAfter === state.turns.length &&
      page.online()
    );
  },

  online: () => session?.online() ?? false,
  send: (message) => session.send(message),
  /** Sends `message` when the page is in the room and online; returns its id, or null. */
  sendInRoom: (message) => (page.online() && page.state.you ? session.send(message) : null),
  stop: () => session?.stop(),
  render,
  positionAfter,
};

/** The engine's legal turns, found once per position. */
let found = { turns: null, toMove: null, you: null, outcome: null, legal: null };
function engineLegal() {
  const { state } = page;
  if (found.turns !== state.turns || found.toMove !== state.toMove || found.you !== state.you || found.outcome !== state.outcome) {
    const mine = myColor(state) !== null && state.toMove === myColor(state) && !state.outcome;
    const legal = mine ? page.engine.legal(state.variant, state.turns) : null;
    found = { turns: state.turns, toMove: state.toMove, you: state.you, outcome: state.outcome, legal };
  }
  return found.legal;
}

/** The position after the first `n` turns: the engine's, or the server's. */
function positionAfter(n) {
  const { engine, state } = page;
  if (engine) return Promise.resolve(engine.position(state.variant, state.turns.slice(0, n)));
  return api('GET', `/api/rooms/${roomId}/position/${n}`);
}

const view = createView(page);
const input = createInput(page, view);
/** Both seats from the room's summary, until the first snapshot says who holds them. */
let seats = null;

function render() {
  view.render();
  followRematch();
  followTournamentOnwards();
}

/** Whether this page follows the tournament for the player's next game. */
let followingOnwards = false;

/** Once a player's game of a tournament is over, the next pairing is what comes next
 * (never a rematch): the page follows the tournament and takes the player there. */
function followTournamentOnwards() {
  const { state } = page;
  if (followingOnwards || !page.tournament || !state.outcome || !myColor(state)) return;
  followingOnwards = true;
  /** Set once the tournament is over: there is no next game to wait for. */
  let over = false;
  const onwards = () => {
    const following = followTournament(page.tournament, {
      tournament(view) {
        over = view.state === 'finished' || view.state === 'cancelled';
        if (over) following.close();
      },
      round() {},
      game(game) {
        if (game.room === roomId) return;
        page.nextGame = game.room;
        render();
        pairingTone();
        location.assign(`/room/${encodeURIComponent(game.room)}`);
      },
      gone() {
        over = true;
      },
      closed() {
        if (!page.nextGame && !over) setTimeout(onwards, 3000);
      },
    });
  };
  onwards();
}

/** Once the rematch is made: a player who asked for it from this page goes there. A
 * player opening the old room later stays, to look at the game, with a link. */
function followRematch() {
  const { state } = page;
  const asked = state.askedRematch || input.askedRematch();
  if (state.rematch && myColor(state) && asked && !session.stopped()) {
    session.stop();
    location.assign(input.rematchLink());
  }
}

function receive(message) {
  // Replies to the chat's requests are the chat panel's.
  if (message.type === 'ack' && view.chat.acked(message.id)) return render();
  if (message.type === 'error' && view.chat.refused(message)) return render();
  if (message.type === 'ack' || message.type === 'error') input.answered(message);
  const before = page.state;
  page.state = apply(before, message, performance.now());
  if (page.state !== before) follow(message, before);
  render();
}

/** What a message that counted sets going beyond the state: finding positions, names, a
 * free seat, coming back after a gap, the end of a room. */
function follow(message, before) {
  const { state } = page;
  switch (message.type) {
    case 'snapshot':
      view.clearNotice();
      input.clearPick();
      if (state.you === 'spectator') offerSeat();
      break;
    case 'resumed':
      view.clearNotice();
      break;
    case 'turn_played':
      view.clearNotice();
      view.turnPlayed(message.turn);
      input.clearPick();
      // Said once the board after it is known: which piece it was, and where it landed.
      findPosition(message.number).then(() => view.announceTurn(message.turn, message.by));
      break;
    case 'taken_back':
      input.takenBack();
      findPosition(message.number);
      break;
    case 'player_joined':
      // The notice does not say who joined: the room's summary does.
      refreshNames();
      break;
    default:
      break;
  }
  if (state.behind && !before.behind) session.resync();
  if (state.gone && !before.gone) {
    session.stop();
    view.noSuchRoom();
  }
}

async function findPosition(n) {
  const position = await positionAfter(n);
  // A later turn may have been played meanwhile: only the newest position is kept.
  page.state = withPosition(page.state, n, position);
  render();
}

/** Learns the names of the players from the room's summary. */
async function refreshNames() {
  const summary = await api('GET', summaryPath).catch(() => null);
  if (!summary) return;
  page.state = withNames(page.state, summary.players);
  render();
}

function offerSeat() {
  view.offerSeat().catch(() => {});
}

/** Whether the account this page is signed in as holds a seat of the room. */
function accountSeat() {
  const players = page.state.players ?? seats;
  return page.user !== null && players !== null && ['white', 'black'].some((c) => players[c].account === page.user);
}

// Who this page is signed in as, and who holds the seats, decide how it joins.
let missing = false;
[page.user, seats, page.engine] = await Promise.all([
  mountAccount(document.getElementById('account')),
  api('GET', summaryPath)
    .then((summary) => {
      document.getElementById('time-control').textContent = summary.clock ? timeControlText(summary.clock) : t('room.no-clock');
      if (summary.tournament) {
        page.tournament = summary.tournament;
        const link = document.getElementById('tournament-link');
        link.href = tournamentHref(summary.tournament);
        link.hidden = false;
      }
      return summary.players;
    })
    .catch((e) => {
      missing = e.code === 'no-such-room';
      return null;
    }),
  loadEngine(),
]);
if (missing) {
  view.noSuchRoom();
} else {
  session = openSession({
    roomId,
    legalTurns: !page.engine,
    since: () => page.state.seq,
    seatToken: () => seatToken(roomId),
    forgetToken: () => localStorage.removeItem(`punct-seat:${roomId}`),
    accountSeat,
    receive,
    disconnected() {
      page.ui.pending = null;
      view.chat.disconnected();
      render();
    },
    status: view.setConnection,
  });
}
