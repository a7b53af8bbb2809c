// What the game page shows: the board, the players' bars and clocks, the reserves, the
// list of turns, the offers and the panels after the game, the message line, the chat
// panel, the alerts of one's move (the tab's title, a tone), and the sound and the slide
// of each turn.
//
// The view reads the page (`page.state`, the room as told; `page.ui`, what the user is
// doing) and draws it, changing neither but for the cell the stack inspector lists.
// `render()` redraws everything; a timer redraws what changes with time alone (the
// clocks, the claim button).

import { api, displayName } from './api.js';
import { drawBoard, parseTurn, isDrop, kindOf, KINDS, chainView, slidePiece, describeTurn } from './board.js';
import { el, playerNode, ratingText, changeText, outcomeText, showReserve, side, timeLeftText, turnName } from './ui.js';
import { t } from './i18n.js';
import { mountChat } from './chat.js';
import { myColor, myMove, clockNow, turnsOf } from './room-state.js';
import { flipped } from './room-input.js';
import { candidates } from './pick.js';

/** How long a notice stays (news that goes stale: a declined offer, the server going
 * away). */
const NOTICE_MS = 8000;

/** How long a moved piece takes to slide to its new place. */
const SLIDE_MS = 250;

const $ = (id) => document.getElementById(id);

/** Mounts the view on the page. `page` is the entry module's: `state`, `ui`, `roomId`,
 * `engine`, `user`, `legal()`, `canPlay()`, `online()`, `sendInRoom()`. */
export function createView(page) {
  const svg = $('board');
  const chat = mountChat(page.roomId, page.sendInRoom);
  const TITLE = document.title;
  let noticeTimer = null;
  /** Whether the message shown is a notice, which the next turn or reconnection clears. */
  let noticed = false;
  /** The state's notice last shown: a new one is news. */
  let shownNotice = null;
  /** The state's chat lines last handed to the panel. */
  let shownChat = null;
  /** Whether it was this player's move at the last render: the alert is for the change. */
  let wasMyMove = false;
  let audio = null;
  /** The number of turns of the position drawn last: a position one turn further on
   * slides that turn's piece. */
  let drawnAfter = null;
  /** The slide going on: the turn `n` and when it started. */
  let sliding = null;
  /** The winning chain of the final position, asked of the engine once. */
  let finalChain = { after: -1, chain: null };

  function setConnection(state, text) {
    const node = $('connection');
    node.dataset.state = state;
    node.textContent = text;
  }

  function say(text, kind = 'info') {
    clearTimeout(noticeTimer);
    noticed = false;
    const node = $('message');
    node.textContent = text;
    node.dataset.kind = kind;
  }

  /** Says `text` until it goes stale: for a while, and not past the next turn or coming
   * back online. */
  function notice(text, kind = 'info') {
    say(text, kind);
    noticed = true;
    noticeTimer = setTimeout(clearNotice, NOTICE_MS);
  }

  function clearNotice() {
    if (noticed) say('');
  }

  /** The room does not exist (or no longer does): the page says so instead of a board. */
  function noSuchRoom() {
    setConnection('closed', t('connection.no-room'));
    $('no-room').hidden = false;
    document.querySelector('main').hidden = true;
  }

  /** Offers a spectator the free seat, if the room has one. */
  async function offerSeat() {
    const summary = await api('GET', `/api/rooms/${encodeURIComponent(page.roomId)}`);
    $('seat-offer').hidden = summary.status !== 'open';
    // A rated game's seat is for a signed-in player only, who plays under their username.
    const barred = summary.rated && !page.user;
    $('seat-offer-text').textContent = barred
      ? t('room.seat-free.rated')
      : t('room.seat-free');
    $('take-seat').disabled = barred;
    $('seat-name').hidden = page.user !== null;
    $('seat-name-input').value = displayName();
  }

  function inspect(cell) {
    const { state, ui } = page;
    ui.inspected = cell;
    const board = ui.view ? ui.view.board : state.board;
    const stack = board.find((s) => s.cell === cell);
    const list = $('inspect').querySelector('ol');
    $('inspect').querySelector('small').textContent = stack ? t('room.stack.cell', { cell }) : t('room.stack.empty', { cell });
    list.replaceChildren(
      ...(stack?.dots ?? []).map((dot) => {
        const li = document.createElement('li');
        li.className = `dot ${dot.color}`;
        li.textContent = t(dot.punct ? 'room.stack.punct' : 'room.stack.dot', { level: dot.level, colour: t(`colour.${dot.color}`), kind: KINDS[dot.kind] });
        return li;
      }),
    );
  }

  // ---- clocks ---------------------------------------------------------------------------

  function formatClock(ms) {
    // A correspondence game's days read as days and hours.
    if (ms >= 3_600_000) return timeLeftText(ms);
    const seconds = Math.ceil(ms / 1000);
    return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
  }

  /** Redraws what changes with time alone: the clocks and the claim button. */
  function tick() {
    const { state, ui } = page;
    const now = performance.now();
    for (const color of ['white', 'black']) {
      const node = $(`player-${color}`).querySelector('.clock');
      node.hidden = !state.clock;
      if (state.clock) {
        node.textContent = formatClock(clockNow(state, now)[`${color}_ms`]);
        node.classList.toggle('running', state.clock.running === color);
      }
    }
    const me = myColor(state);
    const opponent = me === 'white' ? 'black' : 'white';
    const claimAt = me && !state.outcome ? state.claimAt[opponent] : undefined;
    const claim = $('claim-win');
    claim.hidden = claimAt === undefined;
    if (claimAt !== undefined) {
      const wait = claimAt - now;
      claim.disabled = wait > 0 || ui.pending !== null;
      claim.textContent = wait > 0 ? t('room.claim-win.in', { seconds: Math.ceil(wait / 1000) }) : t('room.claim-win');
    }
  }
  setInterval(tick, 250);

  // ---- sounds: the alert of one's move, and each turn's ---------------------------------

  // Both sounds are off until the player turns them on (each switch is remembered): a
  // page that makes noise unasked is unwelcome in an office or at night, and browsers
  // keep a page silent before a click anyway.
  const SOUNDS = { sound: 'punct-sound', 'move-sounds': 'punct-move-sounds' };

  function soundOn(id = 'sound') {
    return localStorage.getItem(SOUNDS[id]) === 'on';
  }

  /** A short tone made by the Web Audio API (no sound files): `hz` gliding to `to`, fading
   * over `seconds`. The audio context is made (or resumed) on a click or a key first:
   * browsers keep one made without a gesture silent. */
  function tone(hz, seconds, volume, to = hz) {
    if (!audio) return;
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
    const now = audio.currentTime;
    oscillator.type = 'triangle';
    oscillator.frequency.setValueAtTime(hz, now);
    oscillator.frequency.exponentialRampToValueAtTime(to, now + seconds);
    gain.gain.setValueAtTime(volume, now);
    gain.gain.exponentialRampToValueAtTime(0.001, now + seconds);
    oscillator.connect(gain).connect(audio.destination);
    oscillator.start();
    oscillator.stop(now + seconds);
  }

  function wakeAudio() {
    if (!soundOn('sound') && !soundOn('move-sounds')) return;
    audio ??= new AudioContext();
    audio.resume();
  }

  for (const id of Object.keys(SOUNDS)) {
    $(id).checked = soundOn(id);
    $(id).addEventListener('change', (event) => {
      localStorage.setItem(SOUNDS[id], event.target.checked ? 'on' : 'off');
      wakeAudio();
    });
  }
  document.addEventListener('pointerdown', wakeAudio);
  document.addEventListener('keydown', wakeAudio);
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden) document.title = TITLE;
  });

  /** When it becomes this player's move while the tab is hidden: says so in the tab's
   * title, and with a tone if the player asked for one. */
  function alertMyMove() {
    const mine = myMove(page.state);
    if (mine && !wasMyMove && document.hidden) {
      document.title = t('room.your-move.title', { title: TITLE });
      if (soundOn()) tone(880, 0.4, 0.2);
    } else if (!mine) {
      document.title = TITLE;
    }
    wasMyMove = mine;
  }

  /** A turn was played in the game: with move sounds on, a knock for a drop and a
   * rising slide for a move (a pass makes none). */
  function turnPlayed(turn) {
    const { from, punct } = parseTurn(turn);
    if (!soundOn('move-sounds') || !punct) return;
    if (from) tone(330, 0.16, 0.25, 520);
    else tone(440, 0.09, 0.3);
  }

  /** When the position drawn is one turn on from the one drawn before (a turn played,
   * or a step forward), the piece that turn moved slides from where it was; a redraw
   * during the slide carries it on. Not for a reader who asks for less motion. */
  function slide(after, view) {
    const now = performance.now();
    if (drawnAfter !== null && after === drawnAfter + 1) sliding = { n: after, start: now };
    drawnAfter = after;
    if (!sliding || sliding.n !== after || now - sliding.start >= SLIDE_MS) return;
    if (matchMedia('(prefers-reduced-motion: reduce)').matches) return;
    const turn = parseTurn(page.state.turns[after - 1] ?? '');
    if (turn.from) slidePiece(svg, view, turn.from, turn.punct, SLIDE_MS, now - sliding.start);
  }

  // ---- the panels -----------------------------------------------------------------------

  /** The players' rating changes once a rated game is rated: "anna 1500? → 1662? (+162)". */
  function renderRatings() {
    const { ratings } = page.state;
    const panel = $('ratings');
    panel.hidden = !ratings;
    if (!ratings) return;
    for (const color of ['white', 'black']) {
      const { username, before, after } = ratings[color];
      panel.querySelector(`.change[data-color="${color}"]`).replaceChildren(
        playerNode({ account: username }),
        ` ${ratingText(before)} → ${ratingText(after)} `,
        el('span', { className: `diff ${after.rating >= before.rating ? 'up' : 'down'}` }, `(${changeText(before, after)})`),
      );
    }
  }

  /** Who the reader is here, for the layout (their own reserve first). */
  function renderYou() {
    const me = myColor(page.state);
    if (me) document.body.dataset.you = me;
    else delete document.body.dataset.you;
  }

  function renderRematch() {
    const { state, ui } = page;
    const me = myColor(state);
    const panel = $('after-game');
    const status = $('rematch-status');
    const button = $('rematch');
    const link = $('rematch-link');
    panel.hidden = !state.outcome || !(me || state.rematchOffer || state.rematch);
    if (page.tournament) {
      // A tournament pairs its players' next games: no rematch.
      button.hidden = true;
      link.hidden = page.nextGame === null;
      panel.hidden = !state.outcome || !me;
      status.textContent = page.nextGame ? t('room.tournament.next') : t('room.tournament.waiting');
      if (page.nextGame) {
        link.textContent = t('room.tournament.play');
        link.href = `/room/${encodeURIComponent(page.nextGame)}`;
      }
      return;
    }
    button.hidden = !me || state.rematch !== null;
    link.hidden = state.rematch === null;
    if (state.rematch) {
      status.textContent = me ? t('room.rematch.ready') : t('room.rematch.started');
      link.textContent = me ? t('room.rematch.play') : t('room.rematch.watch');
      link.href = `/room/${encodeURIComponent(state.rematch)}`;
    } else if (state.rematchOffer && state.rematchOffer === me) {
      status.textContent = t('room.rematch.asked');
    } else if (state.rematchOffer) {
      status.textContent = me ? t('room.rematch.offered') : t('room.rematch.offered-by', { side: side(state.rematchOffer) });
    } else {
      status.textContent = '';
    }
    button.textContent = state.rematchOffer && state.rematchOffer !== me ? t('room.rematch.accept') : t('room.rematch');
    button.disabled = ui.pending !== null || state.rematchOffer === me || !page.online();
  }

  /** The link to this room, and the panel that offers it while the other seat is free. */
  function renderInvite() {
    const { state } = page;
    const me = myColor(state);
    const free = me && !state.players[me === 'white' ? 'black' : 'white'].taken;
    $('invite').hidden = !free || Boolean(state.outcome);
    $('invite-link').value = location.origin + location.pathname;
  }

  function renderReserves(reserves, droppable) {
    if (!reserves) return;
    const me = myColor(page.state);
    for (const color of ['white', 'black']) {
      showReserve($(`reserve-${color}`), color, reserves[color], 'button').forEach((button, i) => {
        const kind = button.dataset.kind;
        button.title = t('room.reserve.key', { kind: KINDS[kind], key: i + 1 });
        button.disabled = color !== me || !droppable.has(kind);
        button.classList.toggle('picked', page.ui.pick?.kind === kind && color === me);
      });
    }
  }

  /** The turns two to a line, White's then Black's, numbered by moves as players count
   * them; each button shows the position after it. */
  function renderTurns() {
    const { state, ui } = page;
    const list = $('turns');
    const shown = ui.view ? ui.view.n : state.turns.length;
    const moves = [];
    state.turns.forEach((turn, i) => {
      const color = i % 2 ? 'black' : 'white';
      if (color === 'white') moves.push(el('li'));
      moves.at(-1).append(
        el(
          'button',
          {
            type: 'button',
            className: `turn ${color}${i + 1 === shown ? ' current' : ''}`,
            dataset: { n: i + 1 },
            ariaLabel: `${turnName(i + 1)}: ${turn}`,
          },
          // A shape as well as a colour tells the sides apart.
          el('span', { className: 'side-mark', ariaHidden: 'true' }, color === 'white' ? '○' : '●'),
          el('span', { className: 'text' }, turn),
        ),
      );
    });
    list.replaceChildren(...moves);
    // Scroll the list only, never the page (scrollIntoView would move a phone's view).
    const current = list.querySelector('.current');
    if (current) list.scrollTop = current.offsetTop - list.clientHeight / 2;
  }

  // ---- the board ------------------------------------------------------------------------

  /** What to mark of the turn that led to the position shown: the PÜNCT's origin for a
   * move, and the cells the piece went to. */
  function lastTurn(shown) {
    // (Just after a takeback the board shown may be ahead of the turns, until found.)
    const text = shown > 0 ? page.state.turns[shown - 1] : undefined;
    const turn = text === undefined ? null : parseTurn(text);
    return turn?.punct ? { from: turn.from, to: [turn.punct, ...turn.minors] } : null;
  }

  function winningChain() {
    const { state } = page;
    if (finalChain.after !== state.turns.length) {
      const chain = chainView(page.engine.position(state.variant, state.turns).chain);
      finalChain = { after: state.turns.length, chain };
    }
    return finalChain.chain;
  }

  /** The board after the last turn: the state's once it has caught up, else the
   * engine's; null on a page without the engine until then. */
  function finalBoard() {
    const { state, engine } = page;
    if (state.boardAfter === state.turns.length) return state.board;
    return engine ? engine.position(state.variant, state.turns).board : null;
  }

  function render() {
    const { state, ui, engine } = page;
    if (state.notice && state.notice !== shownNotice) notice(state.notice.text, state.notice.kind);
    shownNotice = state.notice;
    if (state.chat !== shownChat) chat.replace(state.chat);
    shownChat = state.chat;
    if (!state.players) return;
    const me = myColor(state);
    $('you').textContent = me ? t(`room.you-play.${me}`) : t('room.watching-only');
    $('rated').hidden = !state.rated;
    $('spectators').querySelector('b').textContent = state.spectators;
    for (const color of ['white', 'black']) {
      const seat = state.players[color];
      const node = $(`player-${color}`);
      node.classList.toggle('to-move', !state.outcome && state.toMove === color);
      // The computer's seat says its level as its presence.
      node.querySelector('.who').replaceChildren(seat.taken && !seat.computer ? playerNode(seat) : '');
      node.querySelector('.presence').textContent = seat.computer
        ? t('room.presence.computer', { level: seat.computer })
        : t(!seat.taken ? 'room.presence.free' : seat.connected ? 'room.presence.online' : 'room.presence.away');
    }
    const flip = flipped(page);
    // Black's bar on top when the board shows Black's side nearest.
    $('players').classList.toggle('flipped', flip);
    const myTurn = page.canPlay();
    const legal = page.legal();
    $('turn-status').hidden = Boolean(state.outcome);
    $('turn-status').textContent = t(myTurn ? 'room.to-move.yours' : 'room.to-move', { side: side(state.toMove), move: Math.floor(state.turns.length / 2) + 1 });
    const banner = $('banner');
    banner.hidden = !state.outcome;
    if (state.outcome) banner.textContent = outcomeText(state.outcome, finalBoard());

    const shown = ui.view ?? state;
    const shownAfter = ui.view ? ui.view.n : state.boardAfter;
    const picked = candidates(ui, legal);
    const ghostTurn = ui.dest ? ui.options[ui.option] : null;
    // The winning chain once the game is won on the board, and the final position shown
    // (found by the engine: a page without it shows none).
    const winner = state.outcome?.reason === 'connection' && !ui.view && state.boardAfter === state.turns.length;
    const chain = winner && engine ? winningChain() : null;
    const drawn = {
      board: shown.board,
      flip,
      targets: ui.dest ? [] : picked.map((t) => t.punct),
      minors: ui.dest ? [...new Set(ui.options.flatMap((t) => t.minors))] : [],
      source: ui.pick?.cells ?? (ui.dest ? [ui.dest] : []),
      ghost: ghostTurn && { ...ghostTurn, color: me },
      last: lastTurn(shownAfter),
      chain,
      focus: ui.cursor,
    };
    drawBoard(svg, drawn);
    slide(shownAfter, drawn);
    Object.assign(svg.dataset, {
      turns: state.turns.length,
      shown: shownAfter,
      myTurn,
      pending: ui.pending !== null,
      ghost: ghostTurn ? ghostTurn.text : '',
      flipped: flip,
    });

    const droppable = myTurn ? new Set((legal ?? []).map(parseTurn).filter(isDrop).map(kindOf)) : new Set();
    renderReserves(shown.reserves, droppable);
    renderTurns();

    $('viewing').hidden = !ui.view;
    if (ui.view) $('viewing').querySelector('b').textContent = ui.view.n ? turnName(ui.view.n) : t('room.the-start');
    const playing = me && !state.outcome;
    $('controls').hidden = !playing;
    $('actions').hidden = !playing;
    $('rotate').disabled = ui.options.length < 2;
    $('place').disabled = !ui.dest || !myTurn;
    $('cancel').disabled = !ui.pick;
    // Only when passing is the turn to play (no other legal turn).
    $('pass').hidden = !(myTurn && legal.includes('pass'));
    $('offer-draw').disabled = state.drawOffer !== null || ui.pending !== null;
    $('resign').disabled = ui.pending !== null;
    $('draw-answer').hidden = !state.drawOffer || state.drawOffer === me || !playing;
    $('takeback-answer').hidden = !state.takebackOffer || state.takebackOffer === me || !playing;
    for (const id of ['accept-draw', 'decline-draw', 'accept-takeback', 'decline-takeback']) $(id).disabled = ui.pending !== null;
    // A player may ask once they have played a turn, while no request stands.
    $('takeback').disabled = turnsOf(state, me) === 0 || state.takebackOffer !== null || ui.pending !== null;
    $('takeback').textContent = state.takebackOffer === me ? t('room.takeback.sent') : t('room.takeback');
    $('record-link').href = `/api/rooms/${encodeURIComponent(page.roomId)}/record.txt`;
    // The analysis board needs the engine; it starts from the position shown.
    $('analysis-link').hidden = !engine;
    $('analysis-link').href = `/analysis?room=${encodeURIComponent(page.roomId)}&after=${shownAfter}`;
    renderInvite();
    renderRematch();
    renderYou();
    renderRatings();
    chat.render({ you: state.you, over: Boolean(state.outcome), online: page.online() });
    if (ui.inspected) inspect(ui.inspected);
    tick();
    alertMyMove();
  }

  /** Says `text` to a screen reader, through the page's live region. */
  function announce(text) {
    const region = $('announcer');
    // The same words twice are still news: clear first, so the change is heard.
    region.textContent = '';
    requestAnimationFrame(() => {
      region.textContent = text;
    });
  }

  /** Tells a screen reader turn `turn` by `by`, on the board after it. */
  function announceTurn(turn, by) {
    announce(describeTurn(turn, by, page.state.board));
  }

  return { render, say, notice, clearNotice, setConnection, noSuchRoom, offerSeat, inspect, chat, turnPlayed, announce, announceTurn };
}
