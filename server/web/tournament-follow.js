// Following a tournament over a WebSocket of its own (socket.js; protocol/PROTOCOL.md,
// `follow`): `follow` once welcomed, then the tournament's news as it comes. The
// tournament page shows it; a room of a tournament's game follows it once the game is
// over, to take its player to the next pairing.

import { connect } from './socket.js';

/**
 * Follows tournament `id`. `on` has `tournament(view)` (the whole of it, on following and
 * whenever it changes), `round(round)` (a round just paired), `game(game, paired)` (the
 * receiver's game: `paired` is true when a round paired just now made it, false for a
 * game under way when following began), `gone()` (no such tournament) and `closed()`
 * (the socket ended; follow again to go on). Answers the connection, to `close()`.
 */
export function followTournament(id, on) {
  /** Whether a round has been paired since following began. */
  let paired = false;
  const connection = connect({
    hello: { legal_turns: false },
    receive(message) {
      switch (message.type) {
        case 'welcome':
          connection.send({ type: 'follow', tournament: id });
          break;
        case 'tournament':
          on.tournament(message.tournament);
          break;
        case 'tournament_round':
          paired = true;
          on.round(message.round);
          break;
        case 'tournament_game':
          on.game(message, paired);
          break;
        case 'error':
          if (message.code === 'no-such-tournament') {
            on.gone();
            connection.close();
          }
          break;
        default:
          break;
      }
    },
    // Each follower has its own pace for following again (and reads over HTTP between).
    closed() {
      on.closed();
      return false;
    },
  });
  return connection;
}

/** A short rising tone for a pairing, if this browser turned the sound of its move on
 * (the room's sound setting); silent where the page may not play sound yet. */
export function pairingTone() {
  if (localStorage.getItem('punct-sound') !== 'on') return;
  try {
    const audio = new AudioContext();
    const now = audio.currentTime;
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
    oscillator.frequency.setValueAtTime(660, now);
    oscillator.frequency.exponentialRampToValueAtTime(990, now + 0.25);
    gain.gain.setValueAtTime(0.2, now);
    gain.gain.exponentialRampToValueAtTime(0.001, now + 0.3);
    oscillator.connect(gain).connect(audio.destination);
    oscillator.start();
    oscillator.stop(now + 0.3);
  } catch {
    // No audio here: the page still goes to the game.
  }
}

/** Where this browser keeps the tournaments its player entered, for `site-nav.js`. */
const ENTERED = 'punct-tournaments';

/** The tournaments this browser's player entered that were not yet seen to end. */
export function enteredTournaments() {
  try {
    const ids = JSON.parse(localStorage.getItem(ENTERED) ?? '[]');
    return Array.isArray(ids) ? ids.filter((id) => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

/** Notes whether this browser's player is entered in tournament `id`, and it not over:
 * the tournament's page says so each time it shows the tournament. */
export function noteEntered(id, entered) {
  const ids = enteredTournaments().filter((other) => other !== id);
  if (entered) ids.push(id);
  localStorage.setItem(ENTERED, JSON.stringify(ids));
}
