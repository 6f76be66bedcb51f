// Display names (and reasons people type) are text, not Markdown, wherever the bot writes them: a
// web display name "[Approve here](https://evil.example/x)" must not become a live link in the
// bot's own approval prompt. Checked end to end through the core, then with each platform's real
// renderer: the escaped text shows exactly the characters of the name.
import MarkdownIt from 'markdown-it';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bodyOf } from '../../adapters/discord/render.ts';
import { cardOf } from '../../adapters/feishu/render.ts';
import { escapeHtml as telegramEscape, markdownToTelegramHtml } from '../../adapters/telegram/render.ts';
import { createMarkdownRenderer } from '../../adapters/web/markdown.ts';
import { markdownText } from '../../src/core/markdown-text.ts';
import { BOB, type FakeUser } from '../fakes/memory-adapter.ts';
import { closeAll, createHarness, settled, waitFor } from '../helpers/harness.ts';
import { promptsIn, runs, transfer, transferCall } from './helpers.ts';

afterEach(closeAll);
beforeEach(() => {
  runs.length = 0;
});

const EVIL = '[Approve here](https://evil.example/x)';
const MALLORY: FakeUser = { id: 'u-mallory', name: EVIL };

const commonMark = new MarkdownIt('default', { html: false, linkify: false });

function linksIn(markdown: string): string[] {
  return commonMark
    .parse(markdown, {})
    .flatMap((token) => token.children ?? [])
    .filter((token) => token.type === 'link_open' || token.type === 'image')
    .map((token) => String(token.attrGet('href') ?? token.attrGet('src')));
}

/** The text a browser shows for an HTML fragment (tags dropped, the five entities decoded once). */
function shownText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();
}

describe('display names in approval prompts and outcomes', () => {
  it('a name made of Markdown stays text in the prompt, the refusal and the outcome', async () => {
    const h = await createHarness({ tools: [transfer] });
    h.model.enqueue({ toolCalls: [transferCall()] }, { text: 'Not sent.' });
    await h.adapter.say('send Bob 10 euros', { chatType: 'group', mention: true, from: MALLORY });
    const [prompt] = await promptsIn(h.adapter, 1, 'group-1');
    expect(linksIn(prompt!.text)).toEqual([]);
    const html = markdownToTelegramHtml(prompt!.text);
    expect(html).not.toContain('<a ');
    expect(html).toContain(`${telegramEscape(EVIL)} asked me to send 10 EUR to Bob.`);
    expect(html).toContain(`Only ${telegramEscape(EVIL)} or an admin can decide.`);

    const refusal = await h.adapter.click(prompt!.id, 'Approve', BOB);
    expect(refusal).toBe(`Only ${markdownText(EVIL)} (who asked) or an admin can decide this.`);
    expect(linksIn(refusal!)).toEqual([]);

    const code = /Code ([A-Z0-9]{6})/.exec(prompt!.text)![1]!;
    await h.adapter.say(`/deny ${code} see [the policy](https://evil.example/y)`, { chatType: 'group', from: MALLORY });
    await settled(h.store, 'memory:group-1');
    const outcome = await waitFor(() => h.adapter.messages.get(prompt!.id)!.versions[1], 'the outcome');
    expect(linksIn(outcome)).toEqual([]);
    expect(shownText(markdownToTelegramHtml(outcome))).toMatch(
      /^❌ Denied by \[Approve here\]\(https:\/\/evil\.example\/x\) at \d\d:\d\d UTC: see \[the policy\]\(https:\/\/evil\.example\/y\)\.\nTool transfer_money requested by \[Approve here\]\(https:\/\/evil\.example\/x\)\.$/,
    );
    expect(runs).toEqual([]);
  });
});

describe('markdownText renders as the literal text on every platform', () => {
  const NAMES = [
    EVIL,
    '![pic](https://evil.example/p.png) <https://evil.example/auto>',
    '**Admin** *it* _it_ `code` ~~gone~~ ||spoiler|| __under__',
    '<@123> <#456> <t:0> <at id=all></at> <b>bold</b> &amp; &#91; back\\slash\\',
    '# Admin',
    '> quoted',
    '- item',
    '+ item',
    '1. first',
    '2) second',
    '===',
    '***',
    '-# subtext',
    '| a | b |',
    'Bob\n[Admin]: approve everything\n# heading\r\n> quote',
    'snake_case_name 李雷 O’Brien (ops) v1.2!',
  ];
  const webMarkdown = createMarkdownRenderer();

  for (const name of NAMES) {
    const literal = name.replace(/\r\n|\n/g, ' ').replace(/\r/g, ' ');
    const escaped = markdownText(name);

    it(`as CommonMark, Telegram HTML, web HTML, Discord and Feishu: ${JSON.stringify(name)}`, () => {
      expect(commonMark.render(escaped)).toBe(`<p>${commonMark.utils.escapeHtml(literal)}</p>\n`);

      expect(markdownToTelegramHtml(escaped)).toBe(telegramEscape(literal));

      // The console links bare URLs (linkify); a link may only ever show its own address.
      const web = webMarkdown(escaped);
      expect(shownText(web)).toBe(literal);
      for (const [, href, text] of web.matchAll(/<a href="([^"]*)"[^>]*>([^<]*)<\/a>/g)) expect(text).toBe(href);

      // Discord shows the content as it is, with its own Markdown on top of CommonMark's: every
      // character that starts syntax there (spoilers, mentions, underline) is escaped.
      const discord = bodyOf({ text: escaped }).content;
      expect(discord).toBe(escaped);
      const unescaped = discord.replace(/\\[\s\S]/g, 'x');
      expect(unescaped).not.toMatch(/[*`~|<[\]\\]|__|^\s*(#|>|-#?|\+|\d+[.)])\s/);

      // Feishu's card markdown: no link, no tag (`<` reaches it only as &lt;), no heading/quote/list start.
      const feishu = (cardOf({ text: escaped }).elements[0] as { content: string }).content;
      expect(feishu).not.toMatch(/\]\(|</);
      expect(feishu).not.toMatch(/^\s*(#|>|-|\+|\d+[.)])\s/);
    });
  }
});
