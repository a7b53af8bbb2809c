// The moderators' pages: `/mod` (the queue of reports), `/mod/players/{username}` (a
// player's record, and the actions on it) and `/mod/log` (the audit log), all from the
// JSON under `/api/mod/`. The server serves this page to moderators only.
//
// Reports, reasons and chat lines are other people's words: they reach the page only as
// text (`el` fills nodes with text, never markup).

import { api } from './api.js';
import { mountAccount } from './account.js';
import { el, playerHref, roomHref, when } from './ui.js';

const $ = (id) => document.getElementById(id);
const path = location.pathname.split('/').filter(Boolean);

function say(text, kind = '') {
  $('message').textContent = text;
  $('message').dataset.kind = kind;
}

/** Asks for moderator's `action` with `fields`; says how it went, then shows `after`. */
async function act(action, fields, after) {
  const reason = fields.reason || $('reason').value.trim();
  if (!reason) {
    say('Give a reason first: it is kept in the audit log.', 'error');
    $('reason').focus();
    return;
  }
  try {
    await api('POST', '/api/mod/actions', { action, ...fields, reason });
    say(`Done: ${action.replace('_', ' ')}.`, 'ok');
    await after();
  } catch (e) {
    say(e.message, 'error');
  }
}

function playerLink(username) {
  return username ? el('a', { href: `/mod/players/${encodeURIComponent(username)}` }, username) : 'a player without an account';
}

/** One report, with what a moderator may do about it; `after` shows the page again. */
function reportItem(report, after) {
  const line = report.line
    ? el('blockquote', { className: 'mod-line' }, report.text || '(removed)')
    : null;
  const buttons = [];
  if (!report.resolved_at) {
    buttons.push(el('button', { type: 'button', onclick: () => act('dismiss', { report: report.id }, after) }, 'Dismiss'));
    if (report.line && report.text) {
      buttons.push(el('button', { type: 'button', onclick: () => act('remove_line', { line: report.line, report: report.id }, after) }, 'Remove the line'));
    }
    if (report.reported) {
      buttons.push(el('button', { type: 'button', onclick: () => act('warn', { username: report.reported, report: report.id }, after) }, 'Warn'));
    }
  }
  return el('li', { className: 'mod-report', dataset: { report: report.id } },
    el('p', {}, playerLink(report.reporter), ' reported ', playerLink(report.reported), ` on ${when(report.at)}`,
      report.room ? [' in ', el('a', { href: roomHref(report.room) }, 'this room')] : null),
    line,
    el('p', { className: 'mod-reason' }, report.reason),
    report.resolved_at ? el('p', {}, `Resolved ${when(report.resolved_at)}${report.resolved_by ? ` by ${report.resolved_by}` : ''}`) : null,
    el('div', { className: 'mod-buttons' }, buttons));
}

function entryItem(entry) {
  const what = [entry.action.replace('_', ' ')];
  if (entry.account) what.push(' ', playerLink(entry.account));
  if (entry.role) what.push(` as ${entry.role}`);
  if (entry.until) what.push(` until ${when(entry.until)}`);
  if (entry.room) what.push(' in ', el('a', { href: roomHref(entry.room) }, 'a room'));
  if (entry.line) what.push(` (line ${entry.line})`);
  return el('li', { className: 'mod-entry', dataset: { entry: entry.id } },
    el('p', {}, `${when(entry.at)}: ${entry.moderator ?? 'the operator'} — `, ...what),
    el('p', { className: 'mod-reason' }, entry.reason));
}

async function showQueue() {
  $('queue').hidden = false;
  const { reports } = await api('GET', '/api/mod/reports');
  $('reports').replaceChildren(...(reports.length
    ? reports.map((report) => reportItem(report, showQueue))
    : [el('li', {}, 'No open reports.')]));
}

async function showRecord(username) {
  const record = await api('GET', `/api/mod/players/${encodeURIComponent(username)}`);
  const again = () => showRecord(username);
  $('record').hidden = false;
  $('record-name').replaceChildren(el('a', { href: playerHref(record.username) }, record.username));
  const state = [];
  if (record.role) state.push(`Role: ${record.role}.`);
  if (record.banned_at) state.push(`Banned since ${when(record.banned_at)}.`);
  if (record.muted_until) state.push(`Muted until ${when(record.muted_until)}.`);
  if (record.barred_from_rated) state.push('Barred from rated games.');
  $('record-state').textContent = state.join(' ') || 'No sanction stands.';
  $('record-reports').replaceChildren(...record.reports.map((report) => reportItem(report, again)));
  $('record-actions').replaceChildren(...record.actions.map(entryItem));
  $('record-chat').replaceChildren(...record.chat.map((line) => el('li', { className: 'mod-chat' },
    `${when(line.at)} `, el('a', { href: roomHref(line.room) }, 'room'), ': ',
    line.removed ? el('em', {}, '(removed) ') : null, line.text,
    !line.removed ? el('button', { type: 'button', onclick: () => act('remove_line', { line: line.line }, again) }, 'Remove') : null)));
  $('record-games').replaceChildren(...record.games.map((game) => el('li', {},
    el('a', { href: roomHref(game.room) }, `${game.variant} game, ${game.status}`),
    game.status !== 'over' ? el('button', { type: 'button', onclick: () => act('close_room', { room: game.room }, again) }, 'Close the room') : null)));
  $('record-addresses').replaceChildren(...record.addresses.map((address) => el('li', {},
    el('code', {}, address.hash), ` ${when(address.first_at)} – ${when(address.last_at)}`)));
  $('action').onsubmit = (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    const action = form.get('action');
    const fields = { username: record.username, reason: form.get('reason') };
    if (action === 'mute') fields.minutes = Number(form.get('minutes'));
    act(action, fields, again);
  };
}

async function showLog(before) {
  $('log').hidden = false;
  const query = before ? `?before=${before}` : '';
  const { entries } = await api('GET', `/api/mod/log${query}`);
  const items = entries.map(entryItem);
  if (before) $('entries').append(...items);
  else $('entries').replaceChildren(...items);
  const older = $('older');
  older.hidden = entries.length < 50;
  older.onclick = () => showLog(entries.at(-1).id);
}

$('find').addEventListener('submit', (event) => {
  event.preventDefault();
  const username = new FormData(event.target).get('username').trim();
  location.href = `/mod/players/${encodeURIComponent(username)}`;
});

mountAccount($('account'));
try {
  if (path[1] === 'players' && path[2]) await showRecord(decodeURIComponent(path[2]));
  else if (path[1] === 'log') await showLog();
  else await showQueue();
} catch (e) {
  say(e.message, 'error');
}
