// Questions the way people ask them: typos (also inside Chinese questions), identifiers, long
// messages with side remarks, synonyms (built-in and the admins' own), across languages.
// End to end through KnowledgeBase.search over the grammY corpus and small hand-made pages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importPages } from '../../src/knowledge/importer.ts';
import { parsePageInput } from '../../src/knowledge/page-file.ts';
import { SYNONYMS_SLUG } from '../../src/knowledge/search/synonyms.ts';
import { weighTerms, SIDE_REMARK_WEIGHT } from '../../src/knowledge/search/query.ts';
import { tokenize } from '../../src/knowledge/tokenizer.ts';
import { CORPUS_DIR, openKnowledge, removeTempDirs, type TestKnowledge } from './helpers.ts';

afterAll(removeTempDirs);

let corpus: TestKnowledge;
beforeAll(async () => {
  corpus = await openKnowledge();
  await importPages(corpus.kb, CORPUS_DIR);
});
afterAll(() => corpus.close());

const top = async (kb: TestKnowledge['kb'], query: string, limit = 5) => (await kb.search(query, { limit })).hits.map((h) => h.slug);

describe('typos and informal spelling', () => {
  it('reads an unknown word as the closest known one, also inside a Chinese question', async () => {
    const result = await corpus.kb.search('webhok 怎么设置');
    expect(result.corrections).toContainEqual({ from: 'webhok', to: expect.arrayContaining(['webhook']) });
    // Pages that explain setting up a webhook (in Chinese), each at its "设置 Webhook" section.
    expect(result.hits.slice(0, 3).every((h) => h.slug.startsWith('zh/') && /webhook/i.test(`${h.section} ${h.snippet}`))).toBe(true);
    expect(await top(corpus.kb, 'how 2 make inline keybord buttns', 3)).toContain('en/plugins/keyboard');
    expect(await top(corpus.kb, 'deploy on cloudflair wrokers', 5)).toEqual(
      expect.arrayContaining(['en/hosting/cloudflare-workers-nodejs']),
    );
  });

  it('leaves known words and short words alone', async () => {
    expect((await corpus.kb.search('polling')).corrections).toEqual([]);
    expect((await corpus.kb.search('xqz bot')).corrections).toEqual([]);
  });
});

describe('identifiers', () => {
  it('matches camelCase, snake_case and dotted identifiers with each other', async () => {
    const knowledge = await openKnowledge();
    try {
      await knowledge.kb.save(
        parsePageInput({ slug: 'api/format', title: 'Formatting', content: 'Pass `parse_mode` to `bot.api.sendMessage` for bold text.' }),
        { source: 'cli' },
      );
      await knowledge.kb.save(
        parsePageInput({ slug: 'api/other', title: 'Messages', content: 'A message has text. Send it. Parse it. Mode of it.' }),
        { source: 'cli' },
      );
      expect(await top(knowledge.kb, 'parseMode')).toEqual(['api/format', 'api/other']);
      expect((await top(knowledge.kb, 'sendMessage'))[0]).toBe('api/format');
      expect(tokenize('parseMode')).toEqual(['pars', 'mode', 'parsemode']);
      expect(tokenize('parse_mode')).toContain('parsemode');
      expect(tokenize('bot.api.sendMessage')).toContain('sendmessage');
    } finally {
      await knowledge.close();
    }
  });
});

describe('long questions with side remarks', () => {
  it('weighs the question above the sentences around it', () => {
    const weights = weighTerms(
      'Hi all, our football club loves the bot, thanks for grammY! How do I add buttons under a message?',
      tokenize,
    );
    expect(weights.get('button')).toBe(1);
    expect(weights.get('footbal')).toBe(SIDE_REMARK_WEIGHT);
    // A short message, or one without a question, is taken whole.
    expect(weighTerms('buttons under a message', tokenize).get('button')).toBe(1);
    expect(weighTerms('The football club. The buttons.', tokenize).get('footbal')).toBe(1);
  });

  it('finds the page a long message asks about when its question comes after many side remarks', async () => {
    const knowledge = await openKnowledge();
    try {
      const pages = {
        'club/training': ['Training', 'Training is on Tuesday evening; the coach posts the schedule in the group. Parents bring snacks.'],
        'club/tournaments': ['Tournaments', 'Tournament weekends: parking, uniforms and photos for the players.'],
        'club/members': ['Members', 'How members join the club and what the parents need to know.'],
        'bots/webhooks': ['Webhooks', 'Configure webhooks with setWebhook and a public HTTPS address.'],
        'bots/polling': ['Long polling', 'Long polling asks Telegram for updates; no public address is needed.'],
      };
      for (const [slug, [title, content]] of Object.entries(pages))
        await knowledge.kb.save(parsePageInput({ slug, title, content }), { source: 'cli' });
      const chatter =
        'Sorry for the long story: our club has many members, and the coach, the players and the parents all write in the group every evening about training, the schedule, parking, tournaments, uniforms, photos and snacks, which is a lot.';
      expect(await top(knowledge.kb, `${chatter} Anyway, how do I configure webhooks for our bot?`, 1)).toEqual(['bots/webhooks']);
    } finally {
      await knowledge.close();
    }
  });
});

describe('synonyms', () => {
  it('finds pages through Chinese synonyms the page does not use', async () => {
    const knowledge = await openKnowledge();
    try {
      await knowledge.kb.save(parsePageInput({ slug: 'zh/welcome', title: '欢迎新成员', content: '当用户加入群组时发送一条消息。' }), {
        source: 'cli',
      });
      await knowledge.kb.save(parsePageInput({ slug: 'zh/restart', title: '重启', content: '启动时忽略旧的更新。' }), { source: 'cli' });
      await knowledge.kb.save(parsePageInput({ slug: 'zh/other', title: '其他', content: '群组设置和机器人命令。' }), { source: 'cli' });
      const joined = await knowledge.kb.search('有人进群怎么办');
      expect(joined.hits[0]!.slug).toBe('zh/welcome');
      expect(joined.synonyms.flatMap((s) => s.added)).toContain('加入');
      expect((await top(knowledge.kb, '怎么跳过旧的更新', 1))[0]).toBe('zh/restart');
    } finally {
      await knowledge.close();
    }
  });

  it('brings a page in the other language into the results, below the ones in the question’s language', async () => {
    const knowledge = await openKnowledge();
    try {
      await knowledge.kb.save(parsePageInput({ slug: 'zh/keyboard', title: '键盘', content: '在消息下面添加按钮。' }), { source: 'cli' });
      await knowledge.kb.save(parsePageInput({ slug: 'en/keyboard', title: 'Keyboards', content: 'Add buttons under a message.' }), {
        source: 'cli',
      });
      await knowledge.kb.save(parsePageInput({ slug: 'zh/files', title: '文件', content: '在消息里发送图片和文件。' }), { source: 'cli' });
      await knowledge.kb.save(parsePageInput({ slug: 'en/files', title: 'Files', content: 'Send photos and documents.' }), {
        source: 'cli',
      });
      expect(await top(knowledge.kb, '怎么添加键盘按钮', 2)).toEqual(['zh/keyboard', 'en/keyboard']);
      expect(await top(knowledge.kb, 'keyboard buttons', 2)).toEqual(['en/keyboard', 'zh/keyboard']);
    } finally {
      await knowledge.close();
    }
  });

  it('uses the admins’ own list (a page every process sees), never shows that page, and forgets removed groups', async () => {
    const knowledge = await openKnowledge();
    try {
      await knowledge.kb.save(
        parsePageInput({ slug: 'ops/deploys', title: 'Deploys', content: 'Every release goes through the rollout checklist.' }),
        { source: 'cli' },
      );
      expect(await top(knowledge.kb, 'how do we ship a build')).toEqual([]);
      await knowledge.kb.save(
        parsePageInput({ slug: SYNONYMS_SLUG, title: 'Search synonyms', content: '- ship, release, rollout\n# a comment\n' }),
        { source: 'cli' },
      );
      const found = await knowledge.kb.search('how do we ship a build');
      expect(found.hits.map((h) => h.slug)).toEqual(['ops/deploys']);
      expect(await top(knowledge.kb, 'synonyms')).toEqual([]);
      // Another process (its own index file) sees the list after its next sync.
      const other = await openKnowledge(knowledge.dir);
      try {
        expect(await top(other.kb, 'ship')).toEqual(['ops/deploys']);
      } finally {
        await other.close();
      }
      await knowledge.kb.remove(SYNONYMS_SLUG);
      expect(await top(knowledge.kb, 'how do we ship a build')).toEqual([]);
    } finally {
      await knowledge.close();
    }
  });
});

describe('across languages without embeddings', () => {
  it('finds a Chinese-only page for an English question through identifiers and bilingual synonyms', async () => {
    const knowledge = await openKnowledge();
    try {
      await knowledge.kb.save(parsePageInput({ slug: 'zh/album', title: '相册', content: '用 replyWithMediaGroup 一次发送多张图片。' }), {
        source: 'cli',
      });
      await knowledge.kb.save(parsePageInput({ slug: 'zh/cmd', title: '命令', content: '注册命令并回复用户。' }), { source: 'cli' });
      expect((await top(knowledge.kb, 'send several pictures at once', 1))[0]).toBe('zh/album');
    } finally {
      await knowledge.close();
    }
  });
});
