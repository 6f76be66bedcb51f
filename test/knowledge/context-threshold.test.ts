// The automatic context's threshold on the grammY corpus: a match share (the best section's score
// over the best the question can score), so a short English question gets its page into the
// prompt as a long or a Chinese one does; PARLEY_KNOWLEDGE_MIN_SCORE keeps its old meaning.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { contextOptions, type ContextOptions } from '../../src/knowledge/context-options.ts';
import { importPages } from '../../src/knowledge/importer.ts';
import { CORPUS_DIR, openKnowledge, removeTempDirs, type TestKnowledge } from './helpers.ts';

let base: TestKnowledge;
beforeAll(async () => {
  base = await openKnowledge();
  await importPages(base.kb, CORPUS_DIR);
});
afterAll(async () => {
  await base.close();
  removeTempDirs();
});

/** The same need asked in a few words in each language, and the page that answers it. */
const PAIRS: { en: string; zh: string; page: string }[] = [
  { en: 'proxy', zh: '代理', page: 'advanced/proxy' },
  { en: 'error handling', zh: '错误处理', page: 'guide/errors' },
  { en: 'inline keyboard buttons', zh: '内联键盘按钮', page: 'plugins/keyboard' },
  { en: 'media group', zh: '媒体组', page: 'plugins/media-group' },
  { en: 'parse mode', zh: '解析模式', page: 'plugins/parse-mode' },
  { en: 'internationalization', zh: '国际化', page: 'plugins/i18n' },
  { en: 'send a message with buttons under it', zh: '如何在消息下面添加可以点击的按钮', page: 'plugins/keyboard' },
  { en: 'store data for each user between messages', zh: '怎么在不同消息之间保存每个用户的数据', page: 'plugins/session' },
  { en: 'handle errors thrown inside my middleware', zh: '处理中间件里抛出的错误', page: 'guide/errors' },
];

const OFF_TOPIC = ['what is the weather like in Berlin tomorrow?', '明天柏林的天气怎么样？'];

const defaults = (env: Record<string, string> = {}): ContextOptions => contextOptions(loadConfig(env).knowledge)!;
const slugs = async (query: string, options: ContextOptions) => (await base.kb.relevantSections(query, options)).map((s) => s.slug);

describe('the automatic context threshold', () => {
  it('puts the answering page into the prompt for short and long questions, in English as in Chinese', async () => {
    const options = defaults();
    for (const { en, zh, page } of PAIRS) {
      // The page ranks first in both languages: the threshold alone decides.
      expect((await base.kb.search(en, { limit: 1 })).hits[0]?.slug, en).toBe(`en/${page}`);
      expect((await base.kb.search(zh, { limit: 1 })).hits[0]?.slug, zh).toBe(`zh/${page}`);
      expect(await slugs(en, options), en).toContain(`en/${page}`);
      expect(await slugs(zh, options), zh).toContain(`zh/${page}`);
    }
  });

  it('gives every hit a match from 0 to 1 that stays comparable when the question grows longer', async () => {
    const short = (await base.kb.search('errors in middleware', { limit: 1 })).hits[0]!;
    const long = (
      await base.kb.search(
        "Hi, I'm new to grammY and still learning, sorry if this was asked before. How do I handle errors thrown inside my middleware? Thanks in advance!",
        { limit: 1 },
      )
    ).hits[0]!;
    expect(long.slug).toBe('en/guide/errors');
    expect(short.slug).toBe('en/guide/errors');
    // The raw score nearly triples with the words of the message; the match moves little.
    expect(long.score / short.score).toBeGreaterThan(2);
    expect(long.match / short.match).toBeGreaterThan(0.8);
    expect(long.match / short.match).toBeLessThan(1.25);
    for (const hit of [short, long]) {
      expect(hit.match).toBeGreaterThanOrEqual(defaults().minMatch!);
      expect(hit.match).toBeLessThanOrEqual(1);
    }
  });

  it('keeps messages about something the pages never mention out of the prompt', async () => {
    for (const message of OFF_TOPIC) expect(await slugs(message, defaults()), message).toEqual([]);
  });

  it('keeps the old meaning of PARLEY_KNOWLEDGE_MIN_SCORE, with a deprecation line, alone or beside PARLEY_KNOWLEDGE_MIN_MATCH', async () => {
    expect(loadConfig({}).knowledge).toMatchObject({ minMatch: 0.3 });
    expect(loadConfig({}).knowledge).not.toHaveProperty('minScore');
    expect(loadConfig({}).knowledge.deprecation).toBeUndefined();
    const old = loadConfig({ PARLEY_KNOWLEDGE_MIN_SCORE: '12' }).knowledge;
    expect(old).toMatchObject({
      minScore: 12,
      deprecation: expect.stringMatching(/^PARLEY_KNOWLEDGE_MIN_SCORE is deprecated: .*PARLEY_KNOWLEDGE_MIN_MATCH/),
    });
    expect(old.minMatch).toBeUndefined();
    // A raw score of 12: the short English question stays out, as it did, while the long one gets in.
    expect(await slugs('proxy', defaults({ PARLEY_KNOWLEDGE_MIN_SCORE: '12' }))).toEqual([]);
    expect((await slugs('send a message with buttons under it', defaults({ PARLEY_KNOWLEDGE_MIN_SCORE: '12' })))[0]).toBe(
      'en/plugins/keyboard',
    );
    // Both set: both conditions.
    const both = defaults({ PARLEY_KNOWLEDGE_MIN_SCORE: '1', PARLEY_KNOWLEDGE_MIN_MATCH: '0.99' });
    expect(both).toMatchObject({ minScore: 1, minMatch: 0.99 });
    expect(await slugs('proxy', both)).toEqual([]);
    expect(() => loadConfig({ PARLEY_KNOWLEDGE_MIN_MATCH: '1.5' })).toThrow(/PARLEY_KNOWLEDGE_MIN_MATCH expects a number from 0 to 1/);
  });
});
