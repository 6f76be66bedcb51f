import { describe, expect, it } from 'vitest';
import {
  CATALOG,
  LOCALES,
  localeOf,
  localeSettingOf,
  placeholdersOf,
  resolveLocale,
  scriptLocaleOf,
  strayBraces,
  t,
  type Template,
  textOf,
  wordingText,
} from '../../src/core/i18n/index.ts';

const textsOf = (template: Template): string[] => (typeof template === 'string' ? [template] : Object.values(template));

describe('the text catalogue', () => {
  const englishKeys = Object.keys(CATALOG.en).sort();

  it('has texts', () => {
    expect(englishKeys.length).toBeGreaterThan(100);
  });

  it.each(LOCALES)('%s has every key English has, and no other', (locale) => {
    expect(Object.keys(CATALOG[locale]).sort()).toEqual(englishKeys);
  });

  it.each(LOCALES)('%s uses the same placeholders as English in each text', (locale) => {
    const differing = englishKeys
      .map((key) => ({ key, en: placeholdersOf(CATALOG.en[key]!).join(), translated: placeholdersOf(CATALOG[locale][key]!).join() }))
      .filter((row) => row.en !== row.translated);
    expect(differing).toEqual([]);
  });

  it.each(LOCALES)('%s: every plural form of a text has the same placeholders, and an `other` form', (locale) => {
    const uneven = Object.entries(CATALOG[locale]).filter(([, template]) => {
      if (typeof template === 'string') return false;
      if (!template.other) return true;
      const sets = Object.values(template).map((text) =>
        [...text.matchAll(/\{(\w+)\}/g)]
          .map((m) => m[1])
          .sort()
          .join(),
      );
      return new Set(sets).size > 1;
    });
    expect(uneven.map(([key]) => key)).toEqual([]);
  });

  it.each(LOCALES)('%s has only the plural forms its language has (Intl.PluralRules)', (locale) => {
    const categories = new Set<string>(new Intl.PluralRules(locale).resolvedOptions().pluralCategories);
    const extra = Object.entries(CATALOG[locale]).flatMap(([key, template]) =>
      typeof template === 'string'
        ? []
        : Object.keys(template)
            .filter((form) => !categories.has(form))
            .map((form) => `${key}.${form}`),
    );
    expect(extra).toEqual([]);
  });

  it.each(LOCALES)('%s has no malformed placeholder ({ name}, {name, a lone brace)', (locale) => {
    const malformed = Object.entries(CATALOG[locale]).filter(([, template]) => strayBraces(template).length > 0);
    expect(malformed.map(([key]) => key)).toEqual([]);
  });

  it.each(LOCALES)('%s has no empty text', (locale) => {
    expect(Object.entries(CATALOG[locale]).filter(([, template]) => textsOf(template).some((text) => text.trim() === ''))).toEqual([]);
  });

  it('Chinese texts are written in Chinese (each has Han characters, unless it is only a marker or a name)', () => {
    const notChinese = Object.entries(CATALOG['zh-CN']).filter(([, template]) =>
      textsOf(template).some(
        (text) => !/\p{Script=Han}/u.test(text) && /[A-Za-z]{3}/.test(text.replace(/\{\w+\}|\/\w+|`[^`]*`|PARLEY_\w+|OPENAI_\w+/g, '')),
      ),
    );
    expect(notChinese.map(([key]) => key)).toEqual([]);
  });

  it.each(LOCALES)('%s: every text fills completely when given its placeholders', (locale) => {
    const left = Object.entries(CATALOG[locale]).flatMap(([key, template]) => {
      const vars = Object.fromEntries(placeholdersOf(template).map((name) => [name, name === 'count' ? 2 : `<${name}>`]));
      const counts = typeof template === 'string' ? [2] : [0, 1, 2, 5];
      return counts
        .map((count) => textOf(locale, key as never, { ...vars, ...(vars.count === undefined ? {} : { count }) }))
        .filter((text) => /\{\w+\}/.test(text));
    });
    expect(left).toEqual([]);
  });
});

describe('t()', () => {
  it('fills placeholders, numbers written the locale way', () => {
    expect(t('zh-CN', 'general.error')).toBe('出了点问题，请稍后再试。');
    expect(t('en', 'limit.cut', { length: 20_000, kept: 16_000 })).toBe(
      'Your message was 20,000 characters long; I read only the first 16,000.',
    );
    expect(t('zh-CN', 'help.direct', { name: 'Parley' })).toBe('我是 Parley。直接给我发消息就行。');
  });

  it('picks the plural form of the count (Intl.PluralRules)', () => {
    expect(t('en', 'reply.revokedAll', { count: 1 })).toBe('Revoked 1 grant: every gated tool needs approval again here.');
    expect(t('en', 'reply.revokedAll', { count: 3 })).toBe('Revoked 3 grants: every gated tool needs approval again here.');
    expect(t('zh-CN', 'reply.revokedAll', { count: 1 })).toBe('已撤销 1 项授权：这里所有需要审批的工具都要重新审批。');
  });

  it('leaves a placeholder it has no value for visible (a typed call cannot forget one)', () => {
    expect(textOf('en', 'help.direct', {})).toBe('I am {name}. Just write to me.');
    // @ts-expect-error -- the value of {name} is required
    expect(t('en', 'help.direct', {})).toBe('I am {name}. Just write to me.');
  });

  it('localised wordings: a plain string, a catalogue reference, a string per locale', () => {
    expect(wordingText('zh-CN', 'plain')).toBe('plain');
    expect(wordingText('zh-CN', { key: 'activity.usingServer', vars: { server: 'github' } })).toBe('正在使用 github');
    expect(wordingText('zh-CN', { en: 'looking', 'zh-CN': '查看中' })).toBe('查看中');
    expect(wordingText('zh-CN', { en: 'looking' })).toBe('looking');
  });
});

describe('locales', () => {
  it('maps platform tags to a locale', () => {
    expect(localeOf('zh-hans')).toBe('zh-CN');
    expect(localeOf('zh_cn')).toBe('zh-CN');
    expect(localeOf('zh-TW')).toBe('zh-CN');
    expect(localeOf('en-US')).toBe('en');
    expect(localeOf('de')).toBeUndefined();
    expect(localeOf(null)).toBeUndefined();
    expect(localeOf('')).toBeUndefined();
  });

  it('reads an Accept-Language list in its order, skipping languages without texts', () => {
    expect(localeOf('de-DE,de;q=0.9,zh-CN;q=0.8,en;q=0.7')).toBe('zh-CN');
    expect(localeOf('fr,en-GB;q=0.5')).toBe('en');
    expect(localeOf('fr,de')).toBeUndefined();
  });

  it('uses a fixed setting, else the hint, else English', () => {
    expect(resolveLocale('en', 'zh_cn')).toBe('en');
    expect(resolveLocale('zh-CN', 'en')).toBe('zh-CN');
    expect(resolveLocale('auto', 'zh_cn')).toBe('zh-CN');
    expect(resolveLocale('auto', 'fr')).toBe('en');
  });

  it('reads PARLEY_LOCALE in any case and with _ or -', () => {
    expect(localeSettingOf('AUTO')).toBe('auto');
    expect(localeSettingOf('zh_cn')).toBe('zh-CN');
    expect(localeSettingOf(' en ')).toBe('en');
    expect(localeSettingOf('zh')).toBeUndefined();
    expect(localeSettingOf('fr')).toBeUndefined();
  });

  it('tells the language of a message by its script', () => {
    expect(scriptLocaleOf('帮我查一下明天的天气')).toBe('zh-CN');
    expect(scriptLocaleOf('What is the weather tomorrow?')).toBe('en');
    // A Chinese message with an English word and a link stays Chinese; an English one quoting two Han characters stays English.
    expect(scriptLocaleOf('请帮我 fetch https://example.com/some/long/path')).toBe('zh-CN');
    expect(scriptLocaleOf('What does 你好 mean?')).toBe('en');
    expect(scriptLocaleOf('/help')).toBeUndefined();
    expect(scriptLocaleOf('👍 123')).toBeUndefined();
  });
});
