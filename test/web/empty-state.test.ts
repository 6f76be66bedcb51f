// A newcomer opening the console sees what to try; the hint goes away with the first message and
// does not come back on a reload of a chat that has a conversation.
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closeConsoles, launchBrowser, openChat, say, startConsole, type WebConsole } from './console.ts';

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

describe('web console: empty state', () => {
  it('tells a newcomer what to try, and hides it once the chat has messages', async () => {
    const page = await openChat(context, web.url, { name: 'Alice' });
    const empty = page.locator('#empty');
    await empty.waitFor({ state: 'visible' });
    expect(await empty.textContent()).toContain('/help');
    expect(await empty.locator('.bot-name').first().textContent()).toBe('Parley');

    web.harness.model.enqueue({ text: 'Hi Alice.' });
    await say(page, 'hello');
    await empty.waitFor({ state: 'hidden' });
    await page.locator('.msg.bot', { hasText: 'Hi Alice.' }).waitFor();

    await page.reload();
    await page.locator('.msg.bot', { hasText: 'Hi Alice.' }).waitFor();
    expect(await empty.isVisible()).toBe(false);
  });
});
