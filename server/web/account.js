// The account corner of a page's header: "signed in as X" with sign-out, or buttons that
// open a dialog to sign in or sign up.

import { currentUser, signIn, signOut } from './api.js';
import { el, playerHref } from './ui.js';
import { t } from './i18n.js';

/** Fills `container` (`#account` in the header) and returns the username the page is
 * signed in as, or null. `changed(username)` runs after signing in or out; by default
 * the page reloads. */
export async function mountAccount(container, changed = () => location.reload()) {
  const dialog = accountDialog(async (username) => {
    await show(username);
    changed(username);
  });
  document.body.append(dialog.node);

  async function show(username) {
    if (username) {
      const out = el('button', { id: 'sign-out', type: 'button' }, t('account.sign-out'));
      out.onclick = async () => {
        out.disabled = true;
        await signOut().catch(() => {});
        await show(null);
        changed(null);
      };
      container.replaceChildren(
        // The name says who is signed in; the words are for a screen reader, as the
        // header has no room to spare.
        el('span', { id: 'signed-in' }, el('span', { className: 'visually-hidden' }, t('account.signed-in-as'), ' '), el('a', { id: 'me', href: playerHref(username) }, username)),
        ' ',
        el('a', { id: 'my-games-link', href: '/mine' }, t('nav.my-games')),
        ' ',
        el('a', { id: 'my-account', href: '/account' }, t('page.account')),
        ' ',
        out,
      );
    } else {
      const open = (create) => {
        const button = el('button', { id: create ? 'sign-up' : 'sign-in', type: 'button' }, create ? t('account.sign-up') : t('account.sign-in'));
        button.onclick = () => dialog.open(create);
        return button;
      };
      container.replaceChildren(open(false), ' ', open(true));
    }
    container.dataset.user = username ?? '';
  }

  const username = await currentUser();
  await show(username);
  return username;
}

/** The sign-in and sign-up dialog. `done(username)` runs once the server set the
 * session. */
function accountDialog(done) {
  const title = el('h2');
  const username = el('input', { name: 'username', autocomplete: 'username', required: true, maxLength: 20, spellcheck: false });
  const password = el('input', { name: 'password', type: 'password', required: true, maxLength: 128 });
  const hint = el('p', { className: 'hint' });
  const error = el('p', { className: 'error', id: 'account-error', hidden: true });
  const submit = el('button', { id: 'account-submit', type: 'submit' });
  const cancel = el('button', { type: 'button' }, t('room.cancel-pick'));
  const form = el(
    'form',
    { id: 'account-form' },
    title,
    el('label', {}, t('account.username'), username),
    el('label', {}, t('account.password'), password),
    el('p', { className: 'forgot' }, el('a', { href: '/account' }, t('account.forgot'))),
    hint,
    error,
    el('div', { className: 'buttons' }, cancel, submit),
  );
  const node = el('dialog', { id: 'account-dialog' }, form);
  let create = false;

  cancel.onclick = () => node.close();
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    submit.disabled = true;
    error.hidden = true;
    try {
      const name = await signIn(username.value.trim(), password.value, create);
      password.value = '';
      node.close();
      await done(name);
    } catch (e) {
      error.textContent = e.message;
      error.hidden = false;
    } finally {
      submit.disabled = false;
    }
  });

  return {
    node,
    open(asNew) {
      create = asNew;
      title.textContent = create ? t('account.create') : t('account.sign-in');
      submit.textContent = create ? t('account.sign-up') : t('account.sign-in');
      password.autocomplete = create ? 'new-password' : 'current-password';
      password.minLength = create ? 8 : 0;
      hint.textContent = create
        ? t('account.rules')
        : '';
      hint.hidden = !create;
      error.hidden = true;
      node.showModal();
      username.focus();
    },
  };
}
