// The web console in real Chromium against the real core and the fake model server: streaming,
// Markdown (with the model's HTML shown as text), stop, reload, new conversation.
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { settled } from '../helpers/harness.ts';
import { closeConsoles, launchBrowser, openChat, say, startConsole, userIdOf, type WebConsole } from './console.ts';

let browser: Browser;
let context: BrowserContext;
let web: WebConsole;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
beforeEach(async () => {
  web = await startConsole();
  context = await browser.newContext();
});
afterEach(async () => {
  await context?.close();
  await closeConsoles();
});

function gate(): { hold: Promise<void>; release: () => void } {
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  return { hold, release };
}

describe('web console: chatting', () => {
  it('shows the answer while it streams, in one message edited in place', async () => {
    const { hold, release } = gate();
    web.harness.model.enqueue({ text: 'Hello there! Here is **the** full answer.', chunkSize: 12, hold });
    const page = await openChat(context, web.url, { name: 'Alice' });
    await say(page, 'hi');

    const answer = page.locator('.msg.bot');
    await answer.filter({ hasText: 'Hello there!' }).waitFor();
    // The model is holding after its first chunk: what the page shows is the partial answer.
    expect(await answer.textContent()).not.toContain('full answer');

    release();
    await answer.filter({ hasText: 'full answer.' }).waitFor();
    expect(await answer.count()).toBe(1);
    expect(await answer.locator('strong').textContent()).toBe('the');
    expect(await page.locator('.msg.mine header').textContent()).toBe('Alice (you)');
    const request = web.harness.model.requests[0]!.body.messages.at(-1);
    expect(request).toMatchObject({ role: 'user', content: 'hi' });
  });

  it('renders Markdown and shows HTML from the model as text, without running it', async () => {
    const answer = [
      'Here is a list:',
      '',
      '- first item',
      '- second item',
      '',
      '```ts',
      'const x = 1;',
      '```',
      '',
      'See [the docs](https://example.com/docs) and [this](javascript:window.__pwned=true).',
      '',
      '<script>window.__pwned = true</script>',
      '<img src="x" onerror="window.__pwned = true">',
    ].join('\n');
    web.harness.model.enqueue({ text: answer, chunkSize: 40 });
    const page = await openChat(context, web.url);
    await say(page, 'show me markdown');

    const message = page.locator('.msg.bot');
    await message.filter({ hasText: 'onerror' }).waitFor();
    expect(await message.locator('li').allTextContents()).toEqual(['first item', 'second item']);
    expect(await message.locator('pre code').textContent()).toBe('const x = 1;\n');
    const link = message.locator('a', { hasText: 'the docs' });
    expect(await link.getAttribute('href')).toBe('https://example.com/docs');
    expect(await link.getAttribute('rel')).toContain('noopener');
    expect(await link.getAttribute('target')).toBe('_blank');
    // The javascript: link is not a link, and the markup is visible text, not elements.
    expect(await page.locator('a[href^="javascript"]').count()).toBe(0);
    expect(await message.locator('script, img').count()).toBe(0);
    const text = await message.textContent();
    expect(text).toContain('<script>window.__pwned = true</script>');
    expect(text).toContain('<img src="x" onerror="window.__pwned = true">');
    expect(await page.evaluate(() => (globalThis as { __pwned?: boolean }).__pwned)).toBeUndefined();
  });

  it('stops a long answer with the stop button', async () => {
    web.harness.model.enqueue({ hang: true, text: 'Let me think about this for a very long time' });
    const page = await openChat(context, web.url, { name: 'Alice' });
    await say(page, 'think hard');
    await page.locator('.msg.bot', { hasText: 'Let me think' }).waitFor();

    await page.click('#stop');
    await page.locator('.msg.bot', { hasText: 'Stopped (by Alice)' }).waitFor();
    const turns = await settled(web.harness.store, `web:dm-${await userIdOf(page)}`);
    expect(turns.map((t) => t.status)).toEqual(['cancelled']);
  });

  it('shows the conversation again after a reload; tabs of one browser are one person, another browser is another', async () => {
    web.harness.model.enqueue({ text: 'The capital of France is **Paris**.' });
    const page = await openChat(context, web.url, { name: 'Alice' });
    const id = await userIdOf(page);
    await say(page, 'capital of France?');
    await page.locator('.msg.bot', { hasText: 'Paris' }).waitFor();
    await settled(web.harness.store, `web:dm-${id}`);

    await page.reload();
    await page.locator('body[data-ready="true"]').waitFor();
    expect(await userIdOf(page)).toBe(id);
    expect(await page.locator('.msg.mine').allTextContents()).toEqual(['Alice (you)capital of France?']);
    expect(await page.locator('.msg.bot strong').textContent()).toBe('Paris');
    expect(await page.locator('#name').inputValue()).toBe('Alice');

    // Another tab of the same browser: the same person and direct chat; its name is its own.
    const tab = await openChat(context, web.url, { name: 'Al' });
    expect(await userIdOf(tab)).toBe(id);
    expect(await tab.locator('.msg.mine').allTextContents()).toEqual(['Alice (you)capital of France?']);

    // Another browser (its own cookies): another person with an empty direct chat.
    const otherBrowser = await browser.newContext();
    try {
      const other = await openChat(otherBrowser, web.url);
      expect(await userIdOf(other)).not.toBe(id);
      expect(await other.locator('.msg').count()).toBe(0);
    } finally {
      await otherBrowser.close();
    }
  });

  it('starts a new conversation with the button', async () => {
    web.harness.model.enqueue({ text: 'First answer.' });
    const page = await openChat(context, web.url);
    const key = `web:dm-${await userIdOf(page)}`;
    await say(page, 'hello');
    await page.locator('.msg.bot', { hasText: 'First answer.' }).waitFor();
    await settled(web.harness.store, key);
    const before = (await web.harness.store.sessions.getByKey(key))!;

    await page.click('#reset');
    await page.locator('.msg.bot', { hasText: 'Started a fresh conversation' }).waitFor();
    const after = (await web.harness.store.sessions.getByKey(key))!;
    expect(after.epoch).toBeGreaterThan(before.epoch);
  });
});
