export { CATALOG, type TextKey } from './catalog.ts';
export { DEFAULT_LOCALE, LOCALES, type Locale, type LocaleSetting, localeOf, resolveLocale } from './locale.ts';
export { placeholdersOf, t, type TextVars } from './text.ts';
