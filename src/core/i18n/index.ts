export { CATALOG, isTextKey, type Template, type TextKey } from './catalog.ts';
export {
  DEFAULT_LOCALE,
  LOCALES,
  type Locale,
  type LocaleSetting,
  localeOf,
  localeOrDefault,
  localeSettingOf,
  resolveLocale,
  scriptLocaleOf,
} from './locale.ts';
export { placeholdersOf, strayBraces, t, type TextVars, textOf } from './text.ts';
export { type Wording, wordingText } from './wording.ts';
