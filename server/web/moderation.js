// The moderators' pages: `/mod` (the queue of reports), `/mod/players/{username}` (a
// player's record, and the actions on it) and `/mod/log` (the audit log), all from the
// JSON under `/api/mod/`. The server serves this page to moderators only.
//
// Reports, reasons and chat lines are other people's words: they reach the page only as
// text (`el` fills nodes with text, never markup).

import { api } from './api.js';
import { mountAccount } from './account.js';
import { el, labelled, playerHref, roomHref, when } from './ui.js';
import { t } from './i18n.js';

const $ = (id) => document.getElementById(id);
const path = location.pathname.split('/').filter(Boolean);

/** The text of `key` as nodes, each `{name}` in it replaced by `values[name]` (a node or
 * a string): a sentence with links in it, in the page's language. */
function sentence(key, values) {
  return t(key)
    .split(/(\{\w+\})/)
    .map((part) => {
      const name = part.match(/^\{(\w+)\}$/)?.[1];
      return name && name in values ? values[name] : part;
    });
}

/** An action's name in the page's language. */
function actionName(action) {
  return t(`mod.action.${action}`);
}

function say(text, kind = '') {
  $('message').textContent = text;
  $('message').dataset.kind = kind;
}

/** Asks for moderator's `action` with `fields`; says how it went, then shows `after`. */
async function act(action, fields, after) {
  const reason = fields.reason || $('reason').value.trim();
  if (!reason) {
    say(t('mod.need-reason'), 'error');
    $('reason').focus();
    return;
  }
  try {
    await api('POST', '/api/mod/actions', { action, ...fields, reason });
    say(t('mod.done', { action: actionName(action) }), 'ok');
    await after();
  } catch (e) {
    say(e.message, 'error');
  }
}

function playerLink(username) {
  return username ? el('a', { href: `/mod/players/${encodeURIComponent(username)}` }, username) : t('mod.anonymous');
}

/** One report, with what a moderator may do about it; `after` shows the page again. */
function reportItem(report, after) {
  const line = report.line
    ? el('blockquote', { className: 'mod-line' }, report.text || t('mod.removed'))
    : null;
  const buttons = [];
  if (!report.resolved_at) {
    buttons.push(el('button', { type: 'button', onclick: () => act('dismiss', { report: report.id }, after) }, t('mod.dismiss')));
    if (report.line && report.text) {
      buttons.push(el('button', { type: 'button', onclick: () => act('remove_line', { line: report.line, report: report.id }, after) }, t('mod.remove-line')));
    }
    if (report.reported) {
      buttons.push(el('button', { type: 'button', onclick: () => act('warn', { username: report.reported, report: report.id }, after) }, t('mod.warn')));
    }
  }
  return el('li', { className: 'mod-report', dataset: { report: report.id } },
    el('p', {}, ...sentence('mod.report-head', { reporter: playerLink(report.reporter), reported: playerLink(report.reported), when: when(report.at) }),
      report.room ? [' ', el('a', { href: roomHref(report.room) }, t('mod.this-room'))] : null),
    line,
    el('p', { className: 'mod-reason' }, report.reason),
    report.resolved_at ? el('p', {}, report.resolved_by ? t('mod.resolved-by', { when: when(report.resolved_at), who: report.resolved_by }) : t('mod.resolved', { when: when(report.resolved_at) })) : null,
    el('div', { className: 'mod-buttons' }, buttons));
}

function entryItem(entry) {
  const what = [];
  if (entry.account) what.push(' ', playerLink(entry.account));
  if (entry.role) what.push(' ', t('mod.entry-as', { role: entry.role }));
  if (entry.until) what.push(' ', t('mod.entry-until', { when: when(entry.until) }));
  if (entry.room) what.push(' ', el('a', { href: roomHref(entry.room) }, t('mod.entry-room')));
  if (entry.line) what.push(' ', t('mod.entry-line', { line: entry.line }));
  const head = t('mod.entry', { when: when(entry.at), who: entry.moderator ?? t('mod.operator'), action: actionName(entry.action) });
  return el('li', { className: 'mod-entry', dataset: { entry: entry.id, action: entry.action } },
    el('p', {}, head, ...what),
    el('p', { className: 'mod-reason' }, entry.reason));
}

async function showQueue() {
  $('queue').hidden = false;
  const { reports } = await api('GET', '/api/mod/reports');
  $('reports').replaceChildren(...(reports.length
    ? reports.map((report) => reportItem(report, showQueue))
    : [el('li', {}, t('mod.no-reports'))]));
}

async function showRecord(username) {
  const record = await api('GET', `/api/mod/players/${encodeURIComponent(username)}`);
  const again = () => showRecord(username);
  $('record').hidden = false;
  $('record-name').replaceChildren(el('a', { href: playerHref(record.username) }, record.username));
  const state = [];
  if (record.role) state.push(t('mod.state.role', { role: record.role }));
  if (record.banned_at) state.push(t('mod.state.banned', { when: when(record.banned_at) }));
  if (record.muted_until) state.push(t('mod.state.muted', { when: when(record.muted_until) }));
  if (record.barred_from_rated) state.push(t('mod.state.barred'));
  $('record-state').textContent = state.join(' ') || t('mod.state.none');
  $('record-reports').replaceChildren(...record.reports.map((report) => reportItem(report, again)));
  $('record-actions').replaceChildren(...record.actions.map(entryItem));
  $('record-chat').replaceChildren(...record.chat.map((line) => el('li', { className: 'mod-chat' },
    `${when(line.at)} `, el('a', { href: roomHref(line.room) }, t('mod.room')), `${labelled('')} `,
    line.removed ? el('em', {}, t('mod.removed'), ' ') : null, line.text,
    !line.removed ? el('button', { type: 'button', onclick: () => act('remove_line', { line: line.line }, again) }, t('mod.remove')) : null)));
  $('record-games').replaceChildren(...record.games.map((game) => el('li', {},
    el('a', { href: roomHref(game.room) }, t('mod.game', { variant: game.variant, status: game.status })),
    game.status !== 'over' ? el('button', { type: 'button', onclick: () => act('close_room', { room: game.room }, again) }, t('mod.close-room')) : null)));
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
