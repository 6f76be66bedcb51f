// The languages the bot writes its own texts in, and how a platform's language tag maps to one.
export const LOCALES = ['en', 'zh-CN'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

/** What PARLEY_LOCALE may say: a fixed locale, or `auto` (the person's or chat's language where the platform tells it). */
export type LocaleSetting = Locale | 'auto';

/**
 * A platform's language tag as one of ours, or undefined when we have no texts in it.
 * Telegram sends IETF tags (`en`, `zh-hans`, `zh-hant`), Feishu `zh_cn` / `en_us`, browsers `zh-CN`.
 */
export function localeOf(tag: string | null | undefined): Locale | undefined {
  if (!tag) return undefined;
  const lower = tag.trim().toLowerCase().replaceAll('_', '-');
  if (lower === 'zh' || lower.startsWith('zh-')) return 'zh-CN';
  if (lower === 'en' || lower.startsWith('en-')) return 'en';
  return undefined;
}

/** The locale to write in: the setting when fixed, else the platform's hint, else English. */
export function resolveLocale(setting: LocaleSetting, hint?: string | null): Locale {
  if (setting !== 'auto') return setting;
  return localeOf(hint) ?? DEFAULT_LOCALE;
}
