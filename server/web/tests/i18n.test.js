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

test('a plural message takes the form the language gives its count', () => {
  const turns = { one: '{count} ruch', few: '{count} ruchy', many: '{count} ruchów', other: '{count} ruchu' };
  useCatalogue({ 'mail.turns': turns }, 'pl');
  assert.deepEqual([1, 2, 5, 22].map((count) => t('mail.turns', { count })), ['1 ruch', '2 ruchy', '5 ruchów', '22 ruchy']);
  const days = { one: '{count} день на ход', few: '{count} дня на ход', many: '{count} дней на ход', other: '{count} дня на ход' };
  useCatalogue({ 'clock.days': days }, 'ru');
  assert.deepEqual([1, 2, 5, 21, 22].map((count) => t('clock.days', { count })), ['1 день на ход', '2 дня на ход', '5 дней на ход', '21 день на ход', '22 дня на ход']);
});

test('a form the catalogue lacks falls back on its other form', () => {
  useCatalogue({ 'mail.days': { one: 'a day', other: '{count} days' } }, 'en');
  assert.equal(t('mail.days', { count: 1 }), 'a day');
  assert.equal(t('mail.days', { count: 3 }), '3 days');
  useCatalogue({ 'mail.days': { other: '{count} jours' } }, 'fr');
  assert.equal(t('mail.days', { count: 1 }), '1 jours');
});
