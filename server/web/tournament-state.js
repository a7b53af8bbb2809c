// What a tournament's page shows, worked out from the tournament as the server tells it
// (`GET /api/tournaments/{id}`, server/API.md; `tournament` and `tournament_round` when
// followed, protocol/PROTOCOL.md) and from who looks at it. Pure: no page, no words, no
// clock of its own, so that Node's tests run it on the server's views
// (tests/tournament-state.test.js); tournament.js puts it on the page.
//
// A text is `{key, values}`: a key of the catalogues and its values by the names the
// catalogue gives them, but for times (`when`, `left`, in milliseconds) and colours
// (`colour`), which the page writes in its own way.

/** How many live games the page reads the moves and clocks of (the first boards). */
export const LIVE_GAMES = 16;

/** Whether the tournament is over: nothing more happens in it. */
export const over = (view) => view.state === 'finished' || view.state === 'cancelled';

/** An arena under way: players join, pause (withdraw) and come back while it runs. */
export const arenaRunning = (view) => view.format === 'arena' && view.state === 'running';

/** Whether `me` (a username, or null) is entered and not withdrawn. */
export function entered(view, me) {
  return me !== null && view.entries.some((e) => e.player === me && !e.withdrawn);
}

/** The next game in tournament `view` of the player `me`, with its round: the first of
 * theirs not over (by correspondence every round is paired at once), else their game (or
 * bye) of the last round they are in; null before they are paired. */
export function nextGame(view, me) {
  const mine = view.pairings.flatMap((round) => round.games.filter((g) => g.white === me || g.black === me).map((game) => ({ round: round.round, game })));
  return mine.find(({ game }) => game.black && !game.outcome) ?? mine.at(-1) ?? null;
}

/** The tournament with `round`, just paired (`tournament_round`), among its rounds: it
 * runs, and the standings come with the next `tournament`. */
export function withRound(view, round) {
  const rounds = view.pairings.filter((r) => r.round !== round.round);
  return { ...view, state: 'running', round: Math.max(view.round, round.round), pairings: [...rounds, round].sort((a, b) => a.round - b.round) };
}

/** A score with its halves: 2½. */
export function points(score) {
  const whole = Math.floor(score);
  const half = score - whole >= 0.5 ? '½' : '';
  return whole === 0 && half ? half : `${whole}${half}`;
}

/** A game's result as a score: 1–0, 0–1, ½–½; nothing while it is played. */
function scoreOf(game) {
  if (!game.outcome) return '';
  if (game.outcome.result === 'draw') return '½–½';
  return game.outcome.winner === 'white' ? '1–0' : '0–1';
}

/** The line under the name, at time `now`: when it starts, when an arena ends, the
 * round, or how it ended. */
function status(view, now) {
  if (view.state === 'upcoming') {
    return { key: 'tournament.starts-in', values: { when: view.starts_at, left: Math.max(0, view.starts_at - now) } };
  }
  if (arenaRunning(view)) {
    return { key: 'tournament.ends-in', values: { when: view.ends_at, left: Math.max(0, view.ends_at - now) } };
  }
  if (view.state === 'running') {
    if (view.rounds) return { key: 'tournament.round-of-rounds', values: { round: view.round, rounds: view.rounds } };
    return { key: 'tournament.round-of', values: { round: view.round } };
  }
  return { key: `tournament.state.${view.state}`, values: {} };
}

/** What a signed-in player may do: join while it is open, withdraw (pause, in a running
 * arena) while entered; null when neither applies. */
function entry(view, me) {
  if (me === null) return null;
  const mine = entered(view, me);
  const open = view.state === 'upcoming' || arenaRunning(view);
  if (!(open || (view.state === 'running' && mine))) return null;
  return { join: open && !mine, withdraw: mine ? (arenaRunning(view) ? 'tournament.pause' : 'tournament.withdraw') : null };
}

/** A finished tournament's winner and podium, and, for a Swiss that stopped before its
 * last round, why: no round could be paired without two players meeting again. */
function podium(view) {
  if (view.state !== 'finished' || view.standings.length === 0) return null;
  const endedEarly = view.format === 'swiss' && view.rounds && view.pairings.length < view.rounds;
  return {
    winner: view.standings[0].player,
    places: view.standings.slice(0, 3).map((row) => row.player),
    endedEarly: endedEarly ? { round: view.pairings.length, rounds: view.rounds } : null,
  };
}

/** "Your next game" for `me`: a text, with the opponent and the room when there is a
 * game to go to; null when it is not theirs to see. */
function next(view, me, now) {
  const found = me === null ? null : nextGame(view, me);
  // A player who paused an arena plays out the game they were in.
  const playing = found !== null && Boolean(found.game.black) && !found.game.outcome;
  if (over(view) || !(entered(view, me) || playing)) return null;
  if (view.state === 'upcoming' || !found) {
    return { text: { key: 'tournament.next.starts-in', values: { left: Math.max(0, view.starts_at - now) } } };
  }
  const { round, game } = found;
  if (!game.black) return { text: { key: 'tournament.next.bye', values: { round } } };
  if (game.outcome) return { text: { key: view.format === 'arena' ? 'tournament.next.pool' : 'tournament.next.waiting', values: {} } };
  const colour = game.white === me ? 'white' : 'black';
  return {
    text: { key: 'tournament.next.game', values: { round, colour } },
    opponent: colour === 'white' ? game.black : game.white,
    room: game.room,
  };
}

/** The standings table: its columns (keys) and rows. Before the first round, the players
 * in the order they joined, with no score yet. */
function standings(view, me) {
  const withdrawn = new Set(view.entries.filter((e) => e.withdrawn).map((e) => e.player));
  const rows = view.standings.length > 0 ? view.standings : view.entries.filter((e) => !e.withdrawn).map((e) => ({ player: e.player, score: 0, games: 0 }));
  // An arena ranks by its points alone: no tie-breaks.
  const ties = view.format !== 'arena';
  const tie = (value) => (value === undefined ? '' : points(value));
  return {
    columns: ['tournament.place', 'tournament.player', 'tournament.score', ...(ties ? ['tournament.buchholz', 'tournament.sonneborn-berger'] : []), 'tournament.games'],
    rows: rows.map((row, index) => ({
      place: index + 1,
      player: row.player,
      me: row.player === me,
      withdrawn: withdrawn.has(row.player) ? (view.format === 'arena' ? 'tournament.paused' : 'tournament.withdrawn') : null,
      score: points(row.score),
      ties: ties ? [tie(row.buchholz), tie(row.sonneborn_berger)] : null,
      games: row.games,
    })),
  };
}

/** Every round paired, the latest first, its games board by board. An arena's rounds are
 * the times its pool was paired: "round" to everyone, as "your next game" says. */
function rounds(view) {
  return [...view.pairings].reverse().map((round) => ({
    round: round.round,
    games: round.games.map((game, board) => ({
      board: board + 1,
      room: game.room ?? null,
      white: game.white,
      black: game.black ?? null,
      score: scoreOf(game),
      // A Swiss bye: a win without a game.
      bye: !game.black,
      live: Boolean(game.room && game.black && !game.outcome),
      link: game.room ? (game.outcome ? 'games.replay' : 'tournament.game') : null,
    })),
    // A round robin's odd player out plays nobody this round, and scores nothing.
    resting: round.resting ?? null,
  }));
}

/** What the page shows of tournament `view` to `me` (a username, or null) at time `now`. */
export function show(view, me, now) {
  return {
    status: status(view, now),
    entry: entry(view, me),
    podium: podium(view),
    next: next(view, me, now),
    standings: standings(view, me),
    rounds: rounds(view),
    // Every other page of the site follows it for its player's calls (site-nav.js).
    following: entered(view, me) && !over(view),
  };
}

/** The games under way whose moves and clocks the page reads. */
export function liveGames(view) {
  return view.pairings.flatMap((round) => round.games).filter((game) => game.room && game.black && !game.outcome).slice(0, LIVE_GAMES);
}

/** A live game as last read (`summary` of `GET /api/rooms/{id}`, read at `at`) at time
 * `now`: its move, last turn, and each clock, the running one counted down since read. */
export function liveGame({ summary, at }, now) {
  const clocks = summary.clocks;
  const left = (color) => Math.max(0, clocks[`${color}_ms`] - (clocks.running === color ? now - at : 0));
  return {
    move: Math.floor(summary.turns / 2) + 1,
    lastTurn: summary.last_turn ?? null,
    clocks: clocks ? { white: left('white'), black: left('black') } : null,
  };
}
