// Tokenising, reading page files (with and without front matter, and broken ones), importing a
// folder with bad files in it, and snippets.
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/agent/tokens.ts';
import { knowledgeBlock } from '../../src/knowledge/context-section.ts';
import { importPages } from '../../src/knowledge/importer.ts';
import { PageFileError, pageFromFile, renderPageFile } from '../../src/knowledge/page-file.ts';
import { slugFromPath } from '../../src/knowledge/page.ts';
import { snippet } from '../../src/knowledge/snippet.ts';
import { createTokenizer, tokenize } from '../../src/knowledge/tokenizer.ts';
import { knowledgeTempDir, openKnowledge, removeTempDirs, writeFiles, type TestKnowledge } from './helpers.ts';

afterAll(removeTempDirs);

describe('tokenizer', () => {
  it('lower-cases, drops stop words and stems English', () => {
    expect(tokenize('Sending Messages with Buttons!')).toEqual(['send', 'messag', 'button']);
  });

  it('splits identifiers and keeps them whole too', () => {
    expect(tokenize('bot.api.sendMessage')).toEqual(['bot', 'api', 'send', 'messag', 'sendmessage', 'bot.api.sendmessage']);
    expect(tokenize('InlineKeyboard user_id')).toEqual(['inlin', 'keyboard', 'inlinekeyboard', 'user', 'id', 'user_id', 'userid']);
  });

  it('turns CJK runs into overlapping bigrams, whatever the word boundaries', () => {
    expect(tokenize('添加按钮')).toEqual(['添加', '加按', '按钮']);
    expect(tokenize('点击')).toEqual(['点击']);
    expect(tokenize('键')).toEqual(['键']);
    expect(tokenize('用 InlineKeyboard 发送')).toEqual(['用', 'inlin', 'keyboard', 'inlinekeyboard', '发送']);
  });

  it('normalises full-width characters (NFKC)', () => {
    expect(tokenize('ｂｏｔ　ＡＰＩ')).toEqual(['bot', 'api']);
  });

  it('can use ICU word segmentation instead of bigrams (measured in the benchmark)', () => {
    expect(createTokenizer({ cjk: 'words' })('消息按钮')).toEqual(['消息', '按钮']);
  });
});

describe('page files', () => {
  it('reads the fields from front matter, ignoring keys it does not know', () => {
    const page = pageFromFile(
      '---\ntitle: Refunds\nsummary: How refunds work.\ntags: billing, Support\nprev: false\n---\n\n# Something else\n\nBody.\n',
      'x/y.md',
    );
    expect(page).toEqual({
      slug: 'x/y',
      title: 'Refunds',
      summary: 'How refunds work.',
      content: '# Something else\n\nBody.',
      tags: ['billing', 'support'],
      references: [],
    });
  });

  it('derives title, summary and slug when there is no front matter', () => {
    const page = pageFromFile(
      '# Getting Started\n\nInstall it **first**, then [run](./run.md) it.\nSecond line.\n\n## Next\n\nMore.\n',
      'Guides/Getting Started.md',
    );
    expect(page.title).toBe('Getting Started');
    expect(page.summary).toBe('Install it first, then run it. Second line.');
    expect(page.slug).toBe('guides/getting-started');
  });

  it('takes the title of a page without front matter or heading from its first line of text, else from the file name', () => {
    const title = (text: string, path = 'notes/a.md') => pageFromFile(text, path).title;
    expect(title('just text, no heading')).toBe('just text, no heading');
    expect(title('\n\n  **Refunds** take [five](x.md) days.\nSecond line.\n')).toBe('Refunds take five days.');
    expect(title('- first item\n- second item')).toBe('first item');
    expect(title('> a quoted line')).toBe('a quoted line');
    expect(title('中文的第一行，没有标题。\n第二行。')).toBe('中文的第一行，没有标题。');
    // The first sentence, at most 80 characters, cut at a space.
    const long = title(`${'word '.repeat(30)}end.`);
    expect(long.length).toBeLessThanOrEqual(80);
    expect(long).toMatch(/^word word .*word…$/);
    expect(title('An intro sentence that is long enough to count. Then a second one that goes on past the limit.')).toBe(
      'An intro sentence that is long enough to count.',
    );
    // No text outside code: the file's name.
    expect(title('```sh\nnpm ci\n```\n', 'ops/deploy_checklist-v2.md')).toBe('deploy checklist v2');
    expect(title('', 'Guides/Getting Started.md')).toBe('Getting Started');
    // A heading anywhere still wins; front matter wins over both.
    expect(title('intro line\n\n## Setup\n')).toBe('Setup');
    expect(title('---\ntags: [a]\n---\nbody text')).toBe('body text');
    expect(pageFromFile('text', '', { slug: 'notes/from-stdin' }).title).toBe('text');
    expect(pageFromFile('', '', { slug: 'notes/from-stdin' }).title).toBe('from stdin');
  });

  it('rejects broken front matter, a missing title and bad values with one clear line', () => {
    const error = (text: string) => {
      try {
        pageFromFile(text, 'a.md');
      } catch (e) {
        expect(e).toBeInstanceOf(PageFileError);
        return (e as Error).message;
      }
      throw new Error('expected a PageFileError');
    };
    expect(error('---\ntitle: [unclosed\n---\nbody')).toMatch(/^invalid front matter: /);
    expect(error('---\n- a\n- b\n---\nbody')).toBe('invalid front matter: expected key: value lines (a YAML mapping)');
    expect(error('---\ntitle: x\ntags: {a: 1}\n---\n')).toBe('invalid front matter: tags must be a list or a comma-separated text');
    expect(error('---\ntitle: {a: 1}\n---\n')).toBe('invalid front matter: title must be text');
    expect(error('---\ntitle: "  "\n---\n# Heading')).toBe(
      'title is empty: give the front matter a title, or remove the title line to take it from the first line',
    );
    expect(error('---\nslug: ../etc/passwd\n---\n# T')).toMatch(/^slug must be lower-case letters/);
    expect(error('---\nslug: Upper/Case\n---\n# T')).toMatch(/^slug must be lower-case letters/);
  });

  it('reads front matter as data only: YAML core schema or JSON, no tags, bounded', () => {
    const error = (text: string) => {
      try {
        pageFromFile(text, 'a.md');
      } catch (e) {
        expect(e).toBeInstanceOf(PageFileError);
        return (e as Error).message;
      }
      throw new Error('expected a PageFileError');
    };
    expect(pageFromFile('---json\n{"title": "From JSON", "tags": ["a"]}\n---\nBody.\n', 'j.md')).toMatchObject({
      title: 'From JSON',
      tags: ['a'],
      content: 'Body.',
    });
    expect(pageFromFile('---yaml\r\ntitle: CRLF\r\n---\r\nBody.\r\n', 'y.md')).toMatchObject({ title: 'CRLF', content: 'Body.' });
    expect(pageFromFile('\uFEFF---\n---\n# Empty front matter\n', 'e.md').title).toBe('Empty front matter');
    expect(pageFromFile('----\n# Not front matter\n', 'r.md').content).toBe('----\n# Not front matter');
    expect(error('---\ntitle: !!js/function "function () { return 1 }"\n---\n')).toBe(
      'invalid front matter: the YAML tag !!js/function is not allowed (front matter is plain data)',
    );
    expect(error('---\ntitle: !!binary aGk=\n---\n')).toBe(
      'invalid front matter: the YAML tag !!binary is not allowed (front matter is plain data)',
    );
    expect(error('---\ntitle: !custom x\n---\n')).toBe(
      'invalid front matter: the YAML tag !custom is not allowed (front matter is plain data)',
    );
    expect(error('---\ntitle: a\ntitle: b\n---\n')).toBe('invalid front matter: the key "title" appears twice');
    // Lines are counted in the file (the opening --- is line 1).
    expect(error('---\ntitle: ok\nsummary: x\nnote: @x\n---\n')).toBe(
      'invalid front matter: Plain value cannot start with reserved character @ at line 4, column 7',
    );
    expect(error('---\ntitle: never closed\n# Heading\n')).toBe('invalid front matter: it is not closed (add a --- line after it)');
    expect(error('---toml\ntitle = "x"\n---\n')).toBe(
      'front matter in "toml" is not allowed: only YAML (or JSON) is read, and nothing in a page is run',
    );
    // YAML's duplicate-key check is quadratic: 12,000 keys took ~25 s; the size bound keeps a file cheap.
    const manyKeys = Array.from({ length: 12_000 }, (_, i) => `key${i}: value`).join('\n');
    expect(error(`---\n${manyKeys}\n---\n# T\n`)).toBe('invalid front matter: it is longer than 100,000 characters');
  });

  it('writes files that read back as the same page', () => {
    const page = {
      slug: 'a/b',
      title: 'A: "quoted" title',
      summary: 'Line one.\nLine two.',
      content: '## Part\n\nText with --- and # marks',
      tags: ['x'],
      references: ['https://example.com'],
    };
    expect(pageFromFile(renderPageFile(page), 'ignored.md')).toEqual(page);
  });

  it('makes slugs from paths', () => {
    expect(slugFromPath('en/Guide/README.md')).toBe('en/guide/readme');
    expect(slugFromPath('docs\\My Page (draft).markdown')).toBe('docs/my-page-draft');
    expect(slugFromPath('中文/页面.md')).toBe('中文/页面');
  });
});

describe('importing a folder with bad files', () => {
  let knowledge: TestKnowledge | undefined;
  afterEach(async () => knowledge?.close());

  it('imports the good files, reports every bad one with its reason, and never stops', async () => {
    knowledge = await openKnowledge();
    const dir = knowledgeTempDir('parley-import-');
    writeFiles(dir, {
      'with-front-matter.md': '---\ntitle: Refunds\nslug: billing/refunds\ntags: [billing]\n---\nRefunds take 5 days.\n',
      'plain/page.md': '# Plain page\n\nFirst paragraph.\n',
      'broken.md': '---\ntitle: [unclosed\n---\nbody\n',
      'untitled.md': 'no heading here\n',
      'code-only.md': '```\nx = 1\n```\n',
      'empty-title.md': '---\ntitle: ""\n---\n# Heading\n',
      'zz-twin.md': '---\nslug: billing/refunds\ntitle: Twin\n---\nsame slug\n',
      '.hidden/skip.md': '# Hidden\n',
      'notes.txt': 'not markdown',
    });
    symlinkSync(join(dir, 'does-not-exist.md'), join(dir, 'dangling.md'));

    const dry = await importPages(knowledge.kb, dir, { dryRun: true });
    expect(dry.counts).toEqual({ created: 4, updated: 0, unchanged: 0, failed: 4 });
    expect(await knowledge.kb.count()).toBe(0);

    const report = await importPages(knowledge.kb, dir);
    expect(report.counts).toEqual({ created: 4, updated: 0, unchanged: 0, failed: 4 });
    const reasons = Object.fromEntries(report.outcomes.filter((o) => o.status === 'failed').map((o) => [o.file, o.reason]));
    expect(reasons).toEqual({
      'broken.md': expect.stringMatching(/^invalid front matter: /),
      'dangling.md': 'unreadable file (missing, or a broken link)',
      'empty-title.md': 'title is empty: give the front matter a title, or remove the title line to take it from the first line',
      'zz-twin.md': 'slug billing/refunds is already used by with-front-matter.md',
    });
    expect((await knowledge.kb.get('plain/page'))!).toMatchObject({ title: 'Plain page', summary: 'First paragraph.' });
    expect((await knowledge.kb.get('untitled'))!).toMatchObject({ title: 'no heading here', summary: 'no heading here' });
    expect((await knowledge.kb.get('code-only'))!.title).toBe('code only');
    expect((await knowledge.kb.get('billing/refunds'))!.tags).toEqual(['billing']);

    writeFileSync(join(dir, 'plain/page.md'), '# Plain page\n\nFirst paragraph, edited.\n');
    const again = await importPages(knowledge.kb, dir);
    expect(again.counts).toEqual({ created: 0, updated: 1, unchanged: 3, failed: 4 });
    expect((await knowledge.kb.history('plain/page'))!.map((r) => [r.revision, r.note])).toEqual([
      [2, 'import plain/page.md'],
      [1, 'import plain/page.md'],
    ]);
  });
});

describe('snippets', () => {
  it('shows the part of a long section where most query words are', () => {
    const text = `${'Intro words that say nothing. '.repeat(20)}To send a message with buttons, build an inline keyboard. ${'Trailing filler text. '.repeat(20)}`;
    const cut = snippet(text, 'send message buttons', 120);
    expect(cut).toContain('send a message with buttons');
    expect(cut.startsWith('…')).toBe(true);
    expect(cut.length).toBeLessThanOrEqual(122);
    expect(snippet('短文本', '文本')).toBe('短文本');
  });
});

describe('the automatic context block', () => {
  const hit = (slug: string, words: number) => ({
    slug,
    title: slug.toUpperCase(),
    section: 'Part',
    score: 20,
    match: 0.5,
    markdown: Array.from({ length: words }, (_, i) => `word${i}`).join(' '),
  });

  it('keeps within the token budget, cutting the last section that fits partly and dropping stubs', () => {
    const block = knowledgeBlock([hit('a', 100), hit('b', 400), hit('c', 100)], 400)!;
    expect(estimateTokens(block)).toBeLessThanOrEqual(400);
    expect(block).toMatch(/^<knowledge>\n.*Cite the slug/);
    expect(block).toContain('### [a] A › Part\nword0');
    expect(block).toMatch(/### \[b\] B › Part\nword0[\s\S]*\n…\n\n<\/knowledge>$/);
    expect(block).not.toContain('[c]');
    expect(knowledgeBlock([hit('a', 100)], 100)).toBeUndefined();
    expect(knowledgeBlock([], 1_500)).toBeUndefined();
  });
});
