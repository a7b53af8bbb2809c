// Words the page writes that came in English from elsewhere: the server's fixed name for
// its computer seat (ui.js `computerName`), the browser's "Failed to fetch" and an error
// page's status (api.js `api`), and a colon as the language writes it (`labelled`).

import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { api } from '../api.js';
import { useCatalogue } from '../i18n.js';
import { computerName, labelled } from '../ui.js';

/** Reads the page's catalogue of `code`, as a page in that language has it. */
function speak(code) {
  useCatalogue(JSON.parse(readFileSync(new URL(`../i18n/${code}.json`, import.meta.url))), code);
}

test('the computer seat is named in the reader\'s language, and a player\'s name is left alone', () => {
  speak('cs');
  assert.equal(computerName('Computer (level 3)'), 'Počítač (úroveň 3)');
  speak('it');
  assert.equal(computerName('Computer (level 5)'), 'Computer (livello 5)');
  assert.equal(computerName('Computer (level 5) fan'), undefined);
  assert.equal(computerName('anna'), undefined);
});

test('a server that cannot be reached is said in the reader\'s language, not the browser\'s', async () => {
  speak('ru');
  globalThis.fetch = async () => {
    throw new TypeError('Failed to fetch');
  };
  await assert.rejects(api('GET', '/api/rooms'), { code: 'unreachable', message: 'Сервер недоступен: проверьте подключение и попробуйте ещё раз.' });
});

test('an error page without the API\'s body is told by its status in the reader\'s language', async () => {
  speak('pl');
  globalThis.fetch = async () => new Response('<html>Bad Gateway</html>', { status: 502, statusText: 'Bad Gateway' });
  await assert.rejects(api('GET', '/api/rooms'), { code: 'http', status: 502, message: 'Serwer odpowiedział błędem (HTTP 502); spróbuj ponownie za chwilę.' });
});

test('French puts a space before its colon', () => {
  speak('fr');
  assert.equal(labelled('Standard'), 'Standard\u00a0:');
  speak('de');
  assert.equal(labelled('Standard'), 'Standard:');
});
