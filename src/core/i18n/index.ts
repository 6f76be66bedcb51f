export { CATALOG, isTextKey, type PluralTemplate, type Template, type TextKey } from './catalog.ts';
export {
  DEFAULT_LOCALE,
  LOCALE_SETTINGS,
  LOCALES,
  type Locale,
  type LocaleSetting,
  localeOf,
  localeOrDefault,
  localeSettingOf,
  resolveLocale,
  scriptLocaleOf,
} from './locale.ts';
export { placeholdersOf, strayBraces, t, type TextVars, textOf, type VarsOf } from './text.ts';
export { type Wording, wordingText } from './wording.ts';
