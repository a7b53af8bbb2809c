// The scripts' words (i18n.js `t`): a key's text from the page's catalogue, with its
// values put in once.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { t, useCatalogue } from '../i18n.js';

test('a key gives its text with each value in its place', () => {
  useCatalogue({ 'notice.draw-declined': '{side} hat das Unentschieden abgelehnt' });
  assert.equal(t('notice.draw-declined', { side: 'Schwarz' }), 'Schwarz hat das Unentschieden abgelehnt');
});

test('a value is put in once, braces and all, and a value not given leaves its place', () => {
  useCatalogue({ 'lobby.playing-as': 'You play as {username}.', 'room.to-move': '{side} to move, move {move}' });
  assert.equal(t('lobby.playing-as', { username: '{username}' }), 'You play as {username}.');
  assert.equal(t('room.to-move', { side: 'White' }), 'White to move, move {move}');
});

test('a key the catalogue lacks shows as itself', () => {
  useCatalogue({});
  assert.equal(t('nowhere.to-be-found'), 'nowhere.to-be-found');
});
