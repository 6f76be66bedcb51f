// The languages the bot writes its own texts in, and how a platform's language tag maps to one.
export const LOCALES = ['en', 'zh-CN'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

/** What PARLEY_LOCALE may say: a fixed locale, or `auto` (the person's or chat's language where the platform tells it). */
export const LOCALE_SETTINGS = ['auto', ...LOCALES] as const;
export type LocaleSetting = (typeof LOCALE_SETTINGS)[number];

/** PARLEY_LOCALE as written (any case, `_` or `-`), or undefined when it names no setting. */
export function localeSettingOf(raw: string): LocaleSetting | undefined {
  const wanted = raw.trim().toLowerCase().replaceAll('_', '-');
  return LOCALE_SETTINGS.find((setting) => setting.toLowerCase() === wanted);
}

/**
 * A platform's language tag as one of ours, or undefined when we have no texts in it.
 * Telegram sends IETF tags (`en`, `zh-hans`, `zh-hant`), Feishu `zh_cn` / `en_us`, Discord `zh-CN`
 * / `en-US`, browsers `zh-CN` or an Accept-Language list (`zh-CN,zh;q=0.9,en;q=0.8`: the first
 * tag we have texts in wins, in the order given).
 */
export function localeOf(tag: string | null | undefined): Locale | undefined {
  if (!tag) return undefined;
  if (tag.includes(',')) {
    for (const part of tag.split(',')) {
      const found = localeOf(part.split(';')[0]);
      if (found) return found;
    }
    return undefined;
  }
  const lower = tag.trim().toLowerCase().replaceAll('_', '-');
  if (lower === 'zh' || lower.startsWith('zh-')) return 'zh-CN';
  if (lower === 'en' || lower.startsWith('en-')) return 'en';
  return undefined;
}

/** One of our locales for a tag, English when it names none (a stored turn's locale, read back). */
export function localeOrDefault(tag: string | null | undefined): Locale {
  return localeOf(tag) ?? DEFAULT_LOCALE;
}

/** The locale to write in: the setting when fixed, else the platform's hint, else English. */
export function resolveLocale(setting: LocaleSetting, hint?: string | null): Locale {
  if (setting !== 'auto') return setting;
  return localeOf(hint) ?? DEFAULT_LOCALE;
}

const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi;

/**
 * The language a message is written in, where its script says so: Chinese when Han characters
 * carry it, English when Latin letters do; undefined for a message with neither (a bare command,
 * emoji, a link). Addresses are left out, and a Chinese message with an English word or a name in
 * it stays Chinese (about four Latin letters weigh as one Han character).
 */
export function scriptLocaleOf(text: string): Locale | undefined {
  const plain = text.replace(URL_PATTERN, ' ').replace(/^\/\S+/, ' ');
  const han = plain.match(/\p{Script=Han}/gu)?.length ?? 0;
  const latin = plain.match(/\p{Script=Latin}/gu)?.length ?? 0;
  if (han === 0 && latin === 0) return undefined;
  return han > 0 && han * 4 >= latin ? 'zh-CN' : latin > 0 ? 'en' : 'zh-CN';
}
