// What the user does on the game page, turned into requests: picking a piece (a kind in
// the reserve, or one on the board) and a lit cell for its PÜNCT, turning it at its
// destination, confirming with Play; typing a turn; the keyboard on the board; resigning,
// draws, takebacks, claiming the win and the rematch; stepping through the game; taking
// a free seat, cancelling a room, copying the invitation.
//
// A turn is sent only when it is among the legal turns (`page.legal()`): the list is the
// only judge. What the user is doing lives in `page.ui`, which the view draws.

import { takeSeat, api, seatToken, setDisplayName } from './api.js';
import { parseTurn, KINDS, cellTowards, nearestCell } from './board.js';
import { candidates, clearPick as forget, clickCell as pickAt, emptyPick, rotate as turnPiece } from './pick.js';
import { myColor } from './room-state.js';
import { labelled, refusalText, startingText } from './ui.js';
import { t } from './i18n.js';

const $ = (id) => document.getElementById(id);

/** What the user is doing, before anything is picked. */
export function newUi() {
  return {
    /** The past position shown (`{n, board, reserves}`), or null for the game's. */
    view: null,
    /** What is picked (pick.js): the piece (`pick`: `{kind}` from the reserve, or
     * `{from, cells}` on the board), the cell for its PÜNCT (`dest`), the legal turns
     * that put it there (`options`) and which of them the preview shows (`option`). */
    ...emptyPick(),
    /** The id of the turn or action sent and not yet answered. */
    pending: null,
    /** The cell whose stack the inspector lists. */
    inspected: null,
    /** Whether the board is drawn turned half a turn; null: as the seat has it (Black's
     * side nearest). */
    flip: null,
    /** The cell the keyboard is on. */
    cursor: 'I9',
  };
}

/** What a key pressed on the board's cell `cell` does: 'play' (Enter on a cell of the
 * turn shown), 'rotate' (Space on its PÜNCT's cell), 'click' (as the mouse would), or
 * null for a key the board leaves alone. Enter confirms, so it never turns the piece. */
export function boardKey(ui, cell, key) {
  const shown = ui.dest ? [ui.dest, ...ui.options[ui.option].minors] : [];
  if (key === 'Enter') return shown.includes(cell) ? 'play' : 'click';
  if (key === ' ') return ui.dest === cell ? 'rotate' : 'click';
  return null;
}

/** Whether the board is drawn turned half a turn: as the user chose, else with Black's
 * side nearest for Black. */
export function flipped(page) {
  return page.ui.flip ?? myColor(page.state) === 'black';
}

/** A typed turn in canonical notation: upper case, minor cells in column-then-row order. */
export function canonical(input) {
  const text = input.trim().toUpperCase();
  const turn = parseTurn(text);
  if (turn.punct === null) return text === 'PASS' ? 'pass' : text;
  const order = (cell) => cell.charCodeAt(0) * 100 + Number(cell.slice(1));
  const minors = [...turn.minors].sort((a, b) => order(a) - order(b));
  return `${turn.from ? `${turn.from}-` : ''}${turn.punct}:${minors.join(',')}`;
}

/** Wires the page's controls. `page` is the entry module's (`state`, `ui`, `engine`,
 * `roomId`, `user`, `legal()`, `canPlay()`, `online()`, `send()`, `render()`,
 * `positionAfter(n)`, `stop()`); `view` the view's. */
export function createInput(page, view) {
  const { ui } = page;
  const svg = $('board');
  const { say, notice, inspect } = view;
  /** Set once this page asked for a rematch: the page then follows the player into the
   * rematch's room when it is made. */
  let askedRematch = false;

  function clearPick() {
    forget(ui);
  }

  function pickKind(kind) {
    if (!page.canPlay()) return;
    clearPick();
    ui.pick = { kind };
    say(t('input.kind-picked', { kind: KINDS[kind] }));
    page.render();
  }

  function clickCell(cell) {
    inspect(cell);
    ui.cursor = cell;
    if (!page.canPlay()) return;
    // Without the confirmation step, a click on a minor dot of the turn shown plays it.
    if (!confirming() && ui.dest && ui.options[ui.option].minors.includes(cell)) {
      place();
      return;
    }
    // The destination again turns the piece: only Play sends the turn (or, without the
    // confirmation step, a destination where the piece fits one way only).
    const done = pickAt(ui, page.legal(), page.state.board, myColor(page.state), cell);
    if (done === 'destination' && ui.options.length === 1 && !confirming()) {
      place();
      return;
    }
    if (done === 'elsewhere') {
      if (ui.pick) say(t('input.no-turn-there'), 'refused');
      return;
    }
    if (done === 'destination' || done === 'rotated' || done === 'oriented') announceShown();
    if (done === 'destination') {
      say(ui.options.length > 1 ? t('input.orient') : t('input.play-it'));
    } else if (done === 'picked') {
      say(t('input.piece-picked'));
    } else if (done === 'frozen') {
      say(t('input.cannot-move'), 'refused');
    }
    page.render();
  }

  /** After a pick made from the keyboard: the cursor goes to the lit cell nearest it,
   * and with `focus` the board takes the keyboard, so that no Tab is needed to get
   * there from the reserve. */
  function toTargets(focus) {
    const targets = candidates(ui, page.legal()).map((t) => t.punct);
    if (targets.length && !targets.includes(ui.cursor)) ui.cursor = nearestCell(ui.cursor, targets);
    page.render();
    if (focus) svg.querySelector(`[data-cell="${ui.cursor}"]`)?.focus();
  }

  // ---- the confirmation step: on unless the player turned it off (remembered) --------

  const CONFIRM = 'punct-confirm';

  /** Whether a turn waits for Play once the pick leaves only one. */
  function confirming() {
    return localStorage.getItem(CONFIRM) !== 'off';
  }

  $('confirm').checked = confirming();
  $('confirm').addEventListener('change', (event) => localStorage.setItem(CONFIRM, event.target.checked ? 'on' : 'off'));

  function rotate() {
    if (!turnPiece(ui)) return;
    announceShown();
    page.render();
  }

  /** Tells a screen reader the turn the board shows at the destination, not yet played. */
  function announceShown() {
    const { minors } = ui.options[ui.option];
    view.announce(t('announce.shown', { cell: ui.dest, dots: minors.join(', '), way: ui.option + 1, ways: ui.options.length }));
  }

  function place() {
    if (ui.dest) sendTurn(ui.options[ui.option].text);
  }

  function sendTurn(text) {
    if (!page.canPlay()) return;
    if (!page.legal().includes(text)) {
      say(withWhy(t('input.not-legal-here', { turn: text }), text), 'refused');
      return;
    }
    // Numbered, so that the same play sent again after a lost answer is acknowledged
    // rather than refused (protocol/PROTOCOL.md, play).
    ui.pending = page.send({ type: 'play', turn: text, number: page.state.turns.length + 1 });
    say(t('input.sent', { turn: text }));
    page.render();
  }

  /** `sentence`, followed by what the engine finds wrong with the typed turn `text`
   * after a colon as the language writes it (the sentence alone without an engine). */
  function withWhy(sentence, text) {
    if (!page.engine) return sentence;
    const { state } = page;
    const { why, rule, args } = page.engine.check(state.variant, state.turns, text);
    return why ? `${labelled(sentence)} ${refusalText(rule, args, why)}` : sentence;
  }

  // ---- the notation box ---------------------------------------------------------------

  // Typing offers the legal turns that start so (the input's list), and says whether the
  // text is a legal turn and, when it is not, why.
  const completions = document.createElement('datalist');
  completions.id = 'notation-completions';
  $('notation-form').append(completions);
  $('notation').setAttribute('list', completions.id);
  $('notation').addEventListener('input', (event) => {
    const text = event.target.value.trim().toUpperCase();
    const legal = page.legal();
    const starting = text && legal ? legal.filter((t) => t.startsWith(text)) : [];
    completions.replaceChildren(
      ...starting.slice(0, 12).map((turn) => Object.assign(document.createElement('option'), { value: turn })),
    );
    if (!text || !legal) return;
    const typed = canonical(text);
    if (legal.includes(typed)) say(t('input.typed-legal', { turn: typed }));
    else if (starting.length) say(startingText(starting.length));
    else if (page.engine && /:.+,./.test(text)) say(withWhy(t('input.typed-illegal', { turn: typed }), typed), 'refused');
    else say(t('input.none-start'), 'refused');
  });

  $('notation-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = $('notation');
    if (!page.canPlay()) {
      say(t('input.not-your-turn'), 'refused');
      return;
    }
    sendTurn(canonical(input.value));
    if (ui.pending !== null) input.value = '';
  });

  // ---- the board and its tools ---------------------------------------------------------

  for (const color of ['white', 'black']) {
    // The view redraws the reserve's buttons; a click on one picks its kind.
    $(`reserve-${color}`).querySelector('.kinds').addEventListener('click', (event) => {
      const kind = event.target.closest('button.kind')?.dataset.kind;
      if (!kind) return;
      pickKind(kind);
      // A click with no pointer (`detail` 0) came from Enter or Space.
      if (event.detail === 0 && ui.pick) toTargets(true);
    });
  }
  $('rotate').onclick = rotate;
  $('flip').onclick = () => {
    ui.flip = !flipped(page);
    page.render();
  };
  $('zoom').onclick = () => {
    const zoomed = $('board-box').classList.toggle('zoomed');
    $('zoom').setAttribute('aria-pressed', String(zoomed));
    $('zoom').textContent = zoomed ? t('room.zoom-out') : t('room.zoom-in');
  };
  $('pass').onclick = () => sendTurn('pass');
  $('place').onclick = place;
  $('cancel').onclick = () => {
    clearPick();
    say('');
    page.render();
  };

  svg.addEventListener('click', (event) => {
    const cell = event.target.closest('[data-cell]')?.dataset.cell;
    if (cell) clickCell(cell);
  });
  // On the board the arrow keys move from cell to cell; Enter and Space act as
  // `boardKey` says.
  svg.addEventListener('keydown', (event) => {
    const cell = event.target.closest('[data-cell]')?.dataset.cell;
    if (!cell) return;
    const action = boardKey(ui, cell, event.key);
    if (event.key.startsWith('Arrow')) {
      const next = cellTowards(cell, event.key, flipped(page));
      if (next) {
        ui.cursor = next;
        inspect(next);
        page.render();
      }
    } else if (action === 'play') {
      place();
    } else if (action === 'rotate') {
      rotate();
    } else if (action === 'click') {
      const picked = ui.pick;
      clickCell(cell);
      if (ui.pick && ui.pick !== picked) toTargets(false);
    } else {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
  });
  svg.addEventListener('pointerover', (event) => {
    const cell = event.target.closest('[data-cell]')?.dataset.cell;
    if (cell) inspect(cell);
  });

  document.addEventListener('keydown', (event) => {
    if (['INPUT', 'SELECT', 'TEXTAREA'].includes(event.target.tagName)) return;
    // The digits pick the reserve's kinds in their order, and go to the board.
    const digit = Number(event.key);
    const kind = Number.isInteger(digit) && digit >= 1 ? Object.keys(KINDS)[digit - 1] : undefined;
    const button = kind && $(`reserve-${myColor(page.state)}`)?.querySelector(`button[data-kind="${kind}"]`);
    if (button && !button.disabled) {
      pickKind(kind);
      toTargets(true);
    } else if (event.key === 'r' || event.key === 'R') {
      rotate();
    } else if (event.key === 'Enter' && !event.target.closest('button, a')) {
      // (Enter on a button or a link is theirs.)
      place();
    } else if (event.key === 'Escape') {
      $('cancel').click();
    } else if (event.key === 'ArrowLeft') {
      step(-1);
    } else if (event.key === 'ArrowRight') {
      step(1);
    }
  });

  // ---- resign, draws, takebacks, the claim, the rematch ------------------------------

  function act(type, button) {
    if (page.online()) {
      ui.pending = page.send({ type });
      button.disabled = true;
    }
  }

  $('resign').onclick = (event) => {
    const button = event.target;
    // Two clicks, so a slip of the finger does not lose the game.
    if (button.dataset.confirm) act('resign', button);
    else {
      button.dataset.confirm = '1';
      button.textContent = t('room.resign.really');
    }
  };
  $('offer-draw').onclick = (event) => act('offer_draw', event.target);
  $('takeback').onclick = (event) => act('takeback', event.target);
  $('accept-takeback').onclick = (event) => act('accept_takeback', event.target);
  $('decline-takeback').onclick = (event) => act('decline_takeback', event.target);
  $('accept-draw').onclick = (event) => act('accept_draw', event.target);
  $('decline-draw').onclick = (event) => act('decline_draw', event.target);
  $('claim-win').onclick = (event) => act('claim_win', event.target);
  $('rematch').onclick = (event) => {
    askedRematch = true;
    act('rematch', event.target);
  };

  /** Where the rematch is played. For a player, this browser's seat token of this room
   * holds the other colour there, so it is kept under the new room's id too. */
  function rematchLink() {
    const { rematch } = page.state;
    const token = seatToken(page.roomId);
    if (myColor(page.state) && token) localStorage.setItem(`punct-seat:${rematch}`, token);
    return `/room/${encodeURIComponent(rematch)}`;
  }

  $('rematch-link').onclick = (event) => {
    // Keep the seat token for the new room before going there.
    event.currentTarget.href = rematchLink();
  };

  $('cancel-room').onclick = async (event) => {
    const button = event.target;
    // Two clicks, as for resigning: the room and its link are gone for good.
    if (!button.dataset.confirm) {
      button.dataset.confirm = '1';
      button.textContent = t('room.cancel.really');
      return;
    }
    const token = seatToken(page.roomId);
    try {
      await api('POST', `/api/rooms/${encodeURIComponent(page.roomId)}/cancel`, token ? { token } : {});
      page.stop();
      location.assign('/');
    } catch (e) {
      notice(e.message, 'error');
    }
  };

  // ---- stepping through the game -----------------------------------------------------

  async function show(n) {
    if (n >= page.state.turns.length) {
      ui.view = null;
      page.render();
      return;
    }
    const position = await page.positionAfter(Math.max(0, n));
    ui.view = { n: position.after, board: position.board, reserves: position.reserves };
    page.render();
  }

  function step(delta) {
    const at = ui.view ? ui.view.n : page.state.turns.length;
    show(at + delta);
  }

  $('live').onclick = () => show(page.state.turns.length);
  $('back').onclick = () => step(-1);
  $('forward').onclick = () => step(1);
  $('turns').addEventListener('click', (event) => {
    const n = event.target.closest('[data-n]')?.dataset.n;
    if (n !== undefined) show(Number(n));
  });

  // ---- a free seat, the invitation ---------------------------------------------------

  $('seat-name-input').addEventListener('input', (event) => setDisplayName(event.target.value));

  $('take-seat').onclick = async () => {
    try {
      await takeSeat(page.roomId, page.user !== null);
      location.reload();
    } catch (e) {
      say(e.message, 'error');
      // A name refused can be changed and tried again; any other refusal is final.
      if (e.code !== 'bad-name') $('seat-offer').hidden = true;
    }
  };

  $('copy-link').onclick = async () => {
    try {
      await navigator.clipboard.writeText($('invite-link').value);
      $('copy-link').textContent = t('room.copied');
    } catch {
      // No clipboard (an insecure origin): select the link for the player to copy.
      $('invite-link').select();
      $('copy-link').textContent = t('room.press-ctrl-c');
    }
  };

  return {
    clearPick,
    rematchLink,
    /** Whether the user asked for the rematch on this page. */
    askedRematch: () => askedRematch,

    /** An `ack` or `error` that is not the chat's: the turn or action sent is answered. */
    answered(message) {
      if (message.type === 'ack') {
        ui.pending = null;
        clearPick();
        say('');
      } else if (message.id !== undefined && message.id === ui.pending) {
        ui.pending = null;
      }
    },

    /** The game went back to an earlier position: what was picked no longer applies. */
    takenBack() {
      clearPick();
      ui.view = null;
    },
  };
}
