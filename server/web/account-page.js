// The account page, `/account`: change the password, confirm a mail address, see where
// one is signed in and sign out everywhere, see whom one blocks and the moderators'
// warnings, download one's data, delete the account.
// Signed out, it takes the links mailed to confirm an address (`?confirm=`) or to set a
// forgotten password (`?reset=`), and asks for the latter.

import { api } from './api.js';
import { mountAccount } from './account.js';
import { el, labelled, when } from './ui.js';
import { t } from './i18n.js';

const $ = (id) => document.getElementById(id);

/** Says `text` under the page; an error in red. */
function say(text, error = false) {
  $('status').textContent = text;
  $('status').className = error ? 'error' : '';
}

/** Runs `work` on `form`'s submission with its fields; says what came of it. */
function onSubmit(form, work) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = form.querySelector('button');
    button.disabled = true;
    try {
      say(await work(Object.fromEntries(new FormData(form))));
      form.reset();
    } catch (e) {
      say(e.message, true);
    } finally {
      button.disabled = false;
    }
  });
}

async function showSessions() {
  const { sessions } = await api('GET', '/api/me/sessions');
  $('sessions').tBodies[0].replaceChildren(
    ...sessions.map((s) =>
      el(
        'tr',
        { className: s.current ? 'current' : '' },
        el('td', { title: s.user_agent ?? '' }, s.device),
        el('td', {}, when(s.created_at)),
        el('td', {}, when(s.last_seen_at)),
        el('td', {}, s.current ? t('account.this-device') : ''),
      ),
    ),
  );
}

async function showBlocks() {
  const { blocks } = await api('GET', '/api/me/blocks');
  $('no-blocks').hidden = blocks.length > 0;
  $('blocks').replaceChildren(
    ...blocks.map((b) => {
      const lift = el('button', { type: 'button' }, t('account.unblock'));
      lift.onclick = async () => {
        await api('DELETE', `/api/me/blocks/${encodeURIComponent(b.username)}`);
        await showBlocks();
      };
      return el('li', { dataset: { username: b.username } }, el('a', { href: `/player/${encodeURIComponent(b.username)}` }, b.username), ' ', t('account.blocked-since', { when: when(b.since) }), ' ', lift);
    }),
  );
}

async function showWarnings() {
  const { warnings } = await api('GET', '/api/me/warnings');
  $('warnings-panel').hidden = warnings.length === 0;
  $('warnings').replaceChildren(...warnings.map((w) => el('li', {}, `${labelled(when(w.at))} `, w.reason)));
}

async function main() {
  const link = new URLSearchParams(location.search);
  if (link.has('confirm')) {
    const status = $('link-status');
    status.hidden = false;
    try {
      await api('POST', '/api/email/confirm', { token: link.get('confirm') });
      status.textContent = t('account.confirmed');
    } catch (e) {
      status.textContent = e.message;
      status.className = 'error';
    }
    history.replaceState(null, '', '/account');
  }
  const username = await mountAccount($('account'));
  if (link.has('reset')) {
    $('reset-panel').hidden = false;
    const token = link.get('reset');
    onSubmit($('reset'), async ({ new_password }) => {
      await api('POST', '/api/password/reset', { token, new_password });
      $('reset-panel').hidden = true;
      return t('account.password-set');
    });
  }
  if (!username) {
    $('forgot-panel').hidden = false;
    onSubmit($('forgot'), async ({ email }) => {
      await api('POST', '/api/password/forgot', { email });
      return t('account.link-sent-if');
    });
    return;
  }
  $('signed-in-panels').hidden = false;
  onSubmit($('password'), async (fields) => {
    await api('POST', '/api/me/password', fields);
    await showSessions();
    return t('account.password-changed');
  });
  onSubmit($('email'), async ({ email }) => {
    await api('POST', '/api/me/email', { email });
    return t('account.link-sent', { email });
  });
  onSubmit($('delete'), async ({ password }) => {
    if (!confirm(t('account.delete.confirm'))) return t('account.delete.kept');
    const { name } = await api('DELETE', '/api/me', { password });
    setTimeout(() => location.assign('/'), 3000);
    return t('account.deleted', { name });
  });
  $('sign-out-everywhere').onclick = async () => {
    await api('DELETE', '/api/me/sessions').catch(() => {});
    location.assign('/');
  };
  await Promise.all([showSessions(), showBlocks(), showWarnings()]);
}

main().catch((e) => say(e.message, true));
