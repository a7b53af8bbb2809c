// What every page's navigation (nav.html) does: the menu button, where the header folds
// the links away (the game page, a phone, and any page whose header would take a second
// line), and the call to a tournament game. A page
// open anywhere on the site follows the tournaments this browser's player entered, and
// when a round pairs them, shows their game with a link that one click follows, and plays
// the pairing's tone. The tournament's own page and a finished game's room take the
// player there by themselves, so this page leaves those to them.

import { enteredTournaments, followTournament, noteEntered, pairingTone } from './tournament-follow.js';
import { el, roomHref, side, tournamentHref } from './ui.js';
import { t } from './i18n.js';

/** How long a follow that ended waits before following again. */
const RETRY_MS = 5000;

const nav = document.querySelector('.site-nav');
const toggle = nav.querySelector('.menu-toggle');

function showMenu(open) {
  nav.classList.toggle('open', open);
  toggle.setAttribute('aria-expanded', String(open));
  // The list opens under its button, moved left as far as it must to stay on the screen.
  const links = nav.querySelector('ul');
  links.style.left = '';
  if (!open) return;
  const over = links.getBoundingClientRect().right - document.documentElement.clientWidth + 8;
  if (over > 0) links.style.left = `${-over}px`;
}

/** Folds the links into the menu button when the header would otherwise wrap onto a
 * second line: a long name in the account corner, a language with long words, or a
 * window a little too narrow would push the page down by a line. Measured unfolded
 * each time, so that it unfolds again once there is room. */
function fit() {
  const header = nav.closest('header');
  const logo = header?.firstElementChild;
  if (!logo) return;
  header.classList.remove('folded');
  const line = logo.getBoundingClientRect().bottom;
  const wraps = [...header.children].some((child) => {
    const box = child.getBoundingClientRect();
    return box.height > 0 && box.top >= line;
  });
  header.classList.toggle('folded', wraps);
  // Unfolded, the links are in the header again: an open menu would show them twice.
  if (getComputedStyle(toggle).display === 'none') showMenu(false);
}

// The header changes size as the window does, and as its corner and switches fill in.
if (globalThis.ResizeObserver) new ResizeObserver(fit).observe(nav.closest('header'));
fit();

toggle.addEventListener('click', () => showMenu(!nav.classList.contains('open')));
document.addEventListener('click', (event) => {
  if (!nav.contains(event.target)) showMenu(false);
});
nav.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && nav.classList.contains('open')) {
    showMenu(false);
    toggle.focus();
  }
});

/** Shows the call to `game` (a `tournament_game`), in place of any earlier one. */
function call(game) {
  document.getElementById('tournament-call')?.remove();
  const later = el('button', { type: 'button' }, t('tournament.call.later'));
  const banner = el(
    'div',
    { id: 'tournament-call', className: 'banner offer', role: 'alert', dataset: { room: game.room } },
    t('tournament.next.game', { round: game.round, colour: side(game.color) }),
    ' ',
    el('b', {}, game.opponent),
    ' ',
    el('a', { className: 'button play', href: roomHref(game.room) }, t('tournament.next.play')),
    ' ',
    later,
  );
  later.onclick = () => banner.remove();
  document.querySelector('header').after(banner);
  pairingTone();
}

/** Follows tournament `id` while it runs, for its rounds' calls. */
function follow(id) {
  let ended = false;
  const following = followTournament(id, {
    tournament(view) {
      nav.dataset.following = 'true';
      ended = view.state === 'finished' || view.state === 'cancelled';
      if (ended) {
        noteEntered(id, false);
        following.close();
      }
    },
    round() {},
    game(game, paired) {
      if (paired && location.pathname !== roomHref(game.room)) call(game);
    },
    gone() {
      ended = true;
      noteEntered(id, false);
    },
    closed() {
      if (!ended) setTimeout(() => follow(id), RETRY_MS);
    },
  });
}

for (const id of enteredTournaments()) {
  if (location.pathname !== tournamentHref(id)) follow(id);
}
