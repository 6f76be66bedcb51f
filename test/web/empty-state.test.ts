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
    expect(await empty.locator('[data-bot]').first().textContent()).toContain('Parley');

    web.harness.model.enqueue({ text: 'Hi Alice.' });
    await say(page, 'hello');
    await empty.waitFor({ state: 'hidden' });
    await page.locator('.msg.bot', { hasText: 'Hi Alice.' }).waitFor();

    await page.reload();
    await page.locator('.msg.bot', { hasText: 'Hi Alice.' }).waitFor();
    expect(await empty.isVisible()).toBe(false);
  });

  it("speaks the browser's language: a Chinese browser gets the page and /help in Chinese", async () => {
    const chinese = await browser.newContext({ locale: 'zh-CN' });
    try {
      const page = await openChat(chinese, web.url, { name: '小明' });
      const empty = page.locator('#empty');
      await empty.waitFor({ state: 'visible' });
      await page.locator('html[lang="zh-CN"]').waitFor();
      expect(await empty.locator('h2').textContent()).toBe('这里还什么都没有');
      expect(await empty.locator('[data-bot]').first().textContent()).toBe('这是和 Parley 的对话。可以试试：');
      expect(await page.locator('#send').textContent()).toBe('发送');
      expect(await page.locator('#text').getAttribute('placeholder')).toBe('给 Parley 发消息');

      await say(page, '/help');
      const help = page.locator('.msg.bot', { hasText: '我是 Parley。直接给我发消息就行。' });
      await help.waitFor();
      expect(await help.textContent()).toContain('/approve <code>：按代码批准一个待审批的工具调用');
    } finally {
      await chinese.close();
    }
  });
});
