// The room's chat panel on the game page.
//
// A player talks in the players' channel, which only the two players hear; a spectator in
// the spectators' channel, which the players hear too once the game is over. The server
// decides who hears what: the page shows every line it is sent, except the opponent's
// once this player muted them (the server stops sending those; the ones already shown are
// hidden too, as a snapshot would omit them).
//
// Every line is someone's typing: it reaches the page as text only (`el` fills nodes with
// text children), never as markup. Another member's line can be reported to the
// moderators; a line a moderator removed shows as removed.

import { api } from './api.js';
import { el, side, when } from './ui.js';
import { t } from './i18n.js';

/** The longest line the server takes, in characters. */
export const MAX_CHARS = 300;

/** Lines kept on the page: the server sends at most 100 on entering, then each new one. */
const KEPT = 300;

/** Who said `line`: a player's name, or their colour when they gave none; a spectator's
 * username when signed in, or "spectator". */
export function speaker(line) {
  if (line.channel === 'spectators') return line.name || t('chat.spectator');
  return line.name || side(line.color);
}

/**
 * Mounts the chat on the page's `#chat` panel. `send(message)` sends a request over the
 * room's connection and returns its `id`, or null when the page is offline. `roomId`
 * keys the mute this browser remembers: the protocol does not tell a page whether its
 * player muted the opponent.
 */
export function mountChat(roomId, send) {
  const $ = (id) => document.getElementById(id);
  const panel = $('chat');
  const list = $('chat-lines');
  const form = $('chat-form');
  const input = $('chat-input');
  const counter = $('chat-count');
  const error = $('chat-error');
  const mute = $('mute');
  const muteKey = `punct-mute:${roomId}`;

  const state = {
    /** Every line received, oldest first. */
    lines: [],
    /** The request in flight: a line (`{id, text}`) or a mute (`{id, muted}`). */
    saying: null,
    muting: null,
    /** Whether this player muted the opponent, as this browser remembers it. */
    muted: localStorage.getItem(muteKey) === '1',
    /** Who the page is in the room (`white`, `black`, `spectator`) and whether the game
     * is over, as last rendered. */
    you: null,
    over: false,
    /** What the list shows, to redraw it only when that changes. */
    drawn: null,
    version: 0,
  };

  input.maxLength = MAX_CHARS;

  function color() {
    return state.you === 'white' || state.you === 'black' ? state.you : null;
  }

  function refuse(text) {
    error.textContent = text;
    error.hidden = !text;
  }

  function count() {
    counter.textContent = `${input.value.length}/${MAX_CHARS}`;
    counter.classList.toggle('over', input.value.length > MAX_CHARS);
  }

  function line(line) {
    const player = line.channel === 'players';
    const mark = player ? line.color : 'spectator';
    const label = player ? t(`chat.player.${line.color}`) : t('chat.spectator');
    return el(
      'li',
      { title: when(line.at), dataset: { channel: line.channel, color: line.color ?? '' } },
      el('span', { className: `mark ${mark}`, title: label }),
      el('b', { className: 'who' }, speaker(line)),
      // A spectator who has a name is told apart from the players by a tag.
      !player && line.name ? el('span', { className: 'tag' }, t('chat.spectator')) : null,
      ' ',
      line.removed
        ? el('span', { className: 'text removed' }, t('chat.removed'))
        : el('span', { className: 'text' }, line.text),
      reportable(line) ? el('button', { type: 'button', className: 'report', title: t('chat.report.title'), onclick: () => reporting(line) }, t('chat.report')) : null,
    );
  }

  /** Whether the reader may report `line`: another member's, numbered, not removed. */
  function reportable(line) {
    const own = line.channel === 'players' && line.color === color();
    return line.line !== undefined && !line.removed && !own;
  }

  /** Opens the form that reports `line`, with a reason, under the list. */
  function reporting(line) {
    const reason = el('input', { name: 'reason', required: true, maxLength: 500, placeholder: t('chat.report-why') });
    const form = el('form', { className: 'report-form', dataset: { line: String(line.line) } },
      el('span', {}, t('chat.report-who', { who: speaker(line) }), ' '), reason,
      el('button', { type: 'submit' }, t('chat.send-report')),
      el('button', { type: 'button', onclick: () => form.remove() }, t('chat.cancel')));
    form.onsubmit = async (event) => {
      event.preventDefault();
      try {
        await api('POST', '/api/reports', { line: line.line, reason: reason.value });
        form.replaceChildren(el('span', { className: 'reported' }, t('chat.reported')));
      } catch (e) {
        form.replaceChildren(el('span', { className: 'error' }, e.status === 401 ? t('chat.sign-in-to-report') : e.message));
      }
    };
    panel.querySelector('.report-form')?.remove();
    list.after(form);
    reason.focus();
  }

  /** The lines to show: all, but the opponent's once muted. */
  function shown() {
    const me = color();
    if (!me || !state.muted) return state.lines;
    return state.lines.filter((l) => l.channel !== 'players' || l.color === me);
  }

  function drawLines() {
    const key = `${state.version}:${state.you}:${state.muted}`;
    if (key === state.drawn) return;
    state.drawn = key;
    // Follow new lines only when the reader was at the bottom (not reading back), and
    // scroll the list alone, never the page.
    const following = list.scrollHeight - list.scrollTop - list.clientHeight < 24;
    const lines = shown();
    list.replaceChildren(...lines.map(line));
    $('chat-empty').hidden = lines.length > 0;
    if (following) list.scrollTop = list.scrollHeight;
  }

  /** Redraws the panel for a member who is `you`, the game over or not. */
  function render({ you, over, online }) {
    state.you = you;
    state.over = over;
    panel.hidden = !you;
    if (!you) return;
    const me = color();
    $('chat-title').textContent = me ? t('chat.players') : t('chat.spectators');
    $('chat-note').textContent = t(me ? (over ? 'chat.note.player-over' : 'chat.note.player') : over ? 'chat.note.spectator-over' : 'chat.note.spectator');
    mute.hidden = !me;
    mute.textContent = state.muted ? t('chat.unmute') : t('chat.mute');
    mute.setAttribute('aria-pressed', String(state.muted));
    mute.disabled = state.muting !== null || !online;
    $('chat-send').disabled = state.saying !== null || !online;
    panel.dataset.muted = String(state.muted);
    drawLines();
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || state.saying) return;
    const id = send({ type: 'chat', text: input.value });
    if (id === null) {
      refuse(t('chat.offline'));
      return;
    }
    state.saying = { id, text: input.value };
    refuse('');
    $('chat-send').disabled = true;
  });
  input.addEventListener('input', count);

  mute.onclick = () => {
    const muted = !state.muted;
    const id = send({ type: 'mute', muted });
    if (id !== null) {
      state.muting = { id, muted };
      mute.disabled = true;
    }
  };

  count();
  refuse('');

  return {
    render,

    /** Replaces the lines shown with a snapshot's (or `resumed`'s) `chat`. */
    replace(lines) {
      state.lines = (lines ?? []).slice(-KEPT);
      state.version++;
    },

    /** An `ack`: true when it answers a request of the chat's. */
    acked(id) {
      if (state.saying?.id === id) {
        // Clear the box, unless the user went on to type something else meanwhile.
        if (input.value === state.saying.text) input.value = '';
        state.saying = null;
        count();
        return true;
      }
      if (state.muting?.id === id) {
        state.muted = state.muting.muted;
        state.muting = null;
        if (state.muted) localStorage.setItem(muteKey, '1');
        else localStorage.removeItem(muteKey);
        return true;
      }
      return false;
    },

    /** An `error`: true when it refuses a request of the chat's, whose message is then
     * shown in the panel (the line stays in the box, to be changed or sent again). */
    refused(message) {
      const mine = [state.saying, state.muting].some((r) => r && r.id === message.id);
      if (!mine) return false;
      if (state.saying?.id === message.id) state.saying = null;
      if (state.muting?.id === message.id) state.muting = null;
      refuse(t('notice.refused', { message: message.message }));
      return true;
    },

    /** The connection ended: requests in flight have no answer coming. */
    disconnected() {
      state.saying = null;
      state.muting = null;
    },
  };
}
