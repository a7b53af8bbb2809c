// The leaderboard, `/leaderboard?variant=V`: the best established ratings of a variant,
// from `GET /api/leaderboard`.

import { api } from './api.js';
import { mountAccount } from './account.js';
import { el, playerNode, ratingText } from './ui.js';

const $ = (id) => document.getElementById(id);
const variant = new URLSearchParams(location.search).get('variant') || 'standard';

async function load() {
  for (const link of document.querySelectorAll('#variants a')) {
    link.classList.toggle('current', link.dataset.variant === variant);
  }
  let board;
  try {
    board = await api('GET', `/api/leaderboard?variant=${encodeURIComponent(variant)}`);
  } catch (e) {
    $('leaders-error').textContent = e.message;
    $('leaders-error').hidden = false;
    return;
  }
  document.querySelector('#leaders tbody').replaceChildren(
    ...board.players.map((player, i) =>
      el(
        'tr',
        {},
        el('td', {}, String(i + 1)),
        el('td', {}, playerNode({ account: player.username })),
        el('td', {}, ratingText(player.rating)),
        el('td', {}, String(player.games)),
      ),
    ),
  );
  $('leaders').hidden = board.players.length === 0;
  $('no-leaders').hidden = board.players.length > 0;
  document.body.dataset.loaded = 'true';
}

mountAccount($('account'));
load();
