// A turn the rules refuse, said in the page's language (ui.js `refusalText`, and the
// notice of room-state.js's `error`): from the `rule` and `args` the server and the
// rules module give, naming the cell and the piece; the English words for a rule the
// catalogue does not know.

import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { useCatalogue } from '../i18n.js';
import { apply } from '../room-state.js';
import { refusalText } from '../ui.js';

/** Reads the page's catalogue of `code`, as a page in that language has it. */
function speak(code) {
  useCatalogue(JSON.parse(readFileSync(new URL(`../i18n/${code}.json`, import.meta.url))), code);
}

const english = 'drop touches the central hexagon at I9: new pieces may not be placed there';

test('a drop into the centre names its cell in the reader\'s words', () => {
  speak('pl');
  assert.equal(refusalText('drop-in-centre', { cell: 'I9' }, english), 'I9 leży w obszarze centralnym: nie można teraz położyć tam piona');
  speak('it');
  assert.equal(refusalText('drop-in-centre', { cell: 'I9' }, english), 'I9 è nell’esagono centrale: ora non vi si può aggiungere nessun pezzo');
});

test('a kind of piece is named in the reader\'s words too', () => {
  speak('ru');
  assert.equal(refusalText('reserve-empty', { kind: 'triangle' }, 'no triangle piece is left in reserve'), 'в вашем запасе не осталось фигур этого вида: треугольная');
});

test('in English the page says a refusal in the rules\' own words, as the server does', () => {
  speak('en');
  assert.equal(refusalText('drop-in-centre', { cell: 'I9' }, 'sent'), english);
});

test('a rule the catalogue does not know, or none, keeps the English words', () => {
  speak('de');
  assert.equal(refusalText('a-rule-from-tomorrow', {}, 'some reason'), 'some reason');
  assert.equal(refusalText(undefined, undefined, 'the message'), 'the message');
  // A server before `args` sent the rule alone, its message in the reader's language.
  assert.equal(refusalText('drop-in-centre', undefined, 'I9 liegt im Sechseck'), 'I9 liegt im Sechseck');
});

test('the server\'s refusal of a turn shows as a notice in the page\'s language', () => {
  speak('es');
  const error = { type: 'error', id: 3, code: 'illegal-turn', rule: 'drop-in-centre', args: { cell: 'I9' }, message: english };
  const state = apply({ seq: 0, notice: null }, error);
  assert.equal(state.notice.text, 'El servidor lo ha rechazado: I9 está en el hexágono central: ahora no se puede poner ahí ninguna pieza');
  assert.equal(state.notice.kind, 'error');
});
