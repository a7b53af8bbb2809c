// The archive, `/games` (or one player's, `/games?player=USERNAME`): finished public
// games, the last ended first, page by page from `GET /api/games`.

import { api } from './api.js';
import { mountAccount } from './account.js';
import { el, gameRows, gamesHead, playerHref } from './ui.js';
import { t } from './i18n.js';

const $ = (id) => document.getElementById(id);
const player = new URLSearchParams(location.search).get('player');
/** The cursor of the next page, when there is one. */
let next = null;

async function more() {
  const query = new URLSearchParams({ limit: '50' });
  if (player) query.set('player', player);
  if (next) query.set('after', next);
  let page;
  try {
    page = await api('GET', `/api/games?${query}`);
  } catch (e) {
    $('games-error').textContent = e.code === 'no-such-player' ? t('player.none', { username: player }) : e.message;
    $('games-error').hidden = false;
    return;
  }
  $('games').querySelector('tbody').append(...gameRows(page.games, player));
  next = page.next ?? null;
  $('more').hidden = next === null;
  const empty = $('games').querySelector('tbody').children.length === 0;
  $('no-games').hidden = !empty;
  $('games').hidden = empty;
  document.body.dataset.loaded = 'true';
}

if (player) {
  document.title = t('title.games-of', { username: player });
  $('games-title').replaceChildren(t('games.of'), ' ', el('a', { href: playerHref(player) }, player));
}
$('games').replaceChildren(gamesHead(), el('tbody'));
$('more').onclick = more;
mountAccount($('account'));
more();
