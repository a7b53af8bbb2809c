// The page's words in English, as a page served in English has them: imported first by
// each test of a module that writes words (`t`), before any module reads the catalogue.

import { readFileSync } from 'node:fs';

import { useCatalogue } from '../i18n.js';

useCatalogue(JSON.parse(readFileSync(new URL('../i18n/en.json', import.meta.url))));
