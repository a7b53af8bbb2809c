// The page's language. The server writes each page in its reader's language (the
// `punct_lang` cookie, else the browser's `Accept-Language`) and puts that language's
// catalogue in it, `<script id="catalogue">`: `t(key, values)` gives its text for what
// the scripts write. The switch in the header changes the language: the server
// remembers it in the cookie, and on the account of a signed-in player, whose mail
// then comes in it too.

//
// A message that counts something is an object of texts by CLDR plural category
// (`one`, `few`, `many`, `other`); the browser's own `Intl.PluralRules` picks the one
// for its `count` in the page's language, as `intl_pluralrules` does on the server.

const source = globalThis.document?.getElementById('catalogue')?.textContent;
/** Key → message; outside a page (Node's tests) whatever `useCatalogue` gave. */
let catalogue = source ? JSON.parse(source) : {};

/** The page's language: one of `LANGUAGES`' codes. */
export const lang = globalThis.document?.documentElement.lang || 'en';

/** The plural rules of the catalogue's language. */
let plurals = new Intl.PluralRules(lang);

/** Uses `texts` (key → message) in `language` as the catalogue: for tests outside a
 * page. */
export function useCatalogue(texts, language = 'en') {
  catalogue = texts;
  plurals = new Intl.PluralRules(language);
}

/** The text of `key`, with each `{name}` in it replaced by `values[name]`; for a plural
 * message, the form for `values.count`. A key the catalogue lacks is shown as it is (a
 * test keeps every key the scripts use in it). */
export function t(key, values = {}) {
  let text = catalogue[key] ?? key;
  if (typeof text === 'object') text = text[plurals.select(Number(values.count))] ?? text.other;
  return text.replace(/\{(\w+)\}/g, (slot, name) => (name in values ? String(values[name]) : slot));
}

/** The languages the switch offers, each named in itself, in `LANGS`' order (i18n.rs). */
const LANGUAGES = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  it: 'Italiano',
  nl: 'Nederlands',
  es: 'Español',
  pl: 'Polski',
  ru: 'Русский',
  cs: 'Čeština',
};

/** The switch, at the end of the page's header: choosing a language stores it
 * (`PUT /api/language`) and shows the page again in it. */
function mountSwitch() {
  const header = document.querySelector('body > header');
  if (!header) return;
  const select = document.createElement('select');
  select.id = 'language';
  select.className = 'language';
  select.setAttribute('aria-label', t('language.label'));
  for (const [code, name] of Object.entries(LANGUAGES)) {
    const option = new Option(name, code, code === lang, code === lang);
    option.lang = code;
    select.append(option);
  }
  select.addEventListener('change', async () => {
    select.disabled = true;
    await fetch('/api/language', { method: 'PUT', body: JSON.stringify({ language: select.value }) }).catch(() => {});
    location.reload();
  });
  header.append(select);
}

if (globalThis.document) mountSwitch();
