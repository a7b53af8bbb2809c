// Light or dark colours: the system's (`prefers-color-scheme`) unless the reader chose one
// with the switch, which this browser remembers. A classic script in each page's head,
// run before the page is first drawn, so that a chosen scheme shows from the start
// without a flash of the other; style.css does the rest from `data-theme`. The switch is
// put at the end of the page's header, in the page's language: this script cannot import
// i18n.js, so it reads the catalogue the server put in the page (`<script id="catalogue">`)
// itself, once the page is there.
(() => {
  const KEY = 'punct-theme';
  const root = document.documentElement;

  /** Shows `choice`: 'light', 'dark', or anything else for the system's. */
  function apply(choice) {
    if (choice === 'light' || choice === 'dark') root.dataset.theme = choice;
    else delete root.dataset.theme;
  }

  apply(localStorage.getItem(KEY));
  // A choice made in another tab applies here too.
  window.addEventListener('storage', (event) => {
    if (event.key === KEY) apply(event.newValue);
  });

  document.addEventListener('DOMContentLoaded', () => {
    const source = document.getElementById('catalogue')?.textContent;
    const texts = source ? JSON.parse(source) : {};
    /** The text of `key`, as i18n.js gives it. */
    const t = (key) => texts[key] ?? key;
    const select = document.createElement('select');
    select.id = 'theme';
    select.className = 'theme-switch';
    select.title = t('theme.title');
    select.setAttribute('aria-label', t('theme.label'));
    for (const [value, text] of [['system', t('theme.system')], ['light', t('theme.light')], ['dark', t('theme.dark')]]) {
      select.append(new Option(text, value));
    }
    select.value = root.dataset.theme ?? 'system';
    select.addEventListener('change', () => {
      localStorage.setItem(KEY, select.value);
      apply(select.value);
    });
    document.querySelector('header')?.append(select);
  });
})();
