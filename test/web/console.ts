// Shared set-up for the web console tests: the real core (harness) with the web adapter on a free
// port, and headless Chromium driven by playwright-core.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { AnyTool } from '../../src/agent/tools.ts';
import { silentLogger } from '../../src/log.ts';
import { WebAdapter, webChannel } from '../../adapters/web/index.ts';
import { createHarness, type Harness } from '../helpers/harness.ts';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export interface WebConsole {
  harness: Harness;
  web: WebAdapter;
  url: string;
}

export async function startConsole(options: { tools?: AnyTool[]; env?: Record<string, string>; webEnv?: Record<string, string> } = {}): Promise<WebConsole> {
  const adapter = await webChannel.fromEnv({ env: { PARLEY_WEB_PORT: '0', ...options.webEnv }, log: silentLogger, botName: 'Parley' });
  if (!(adapter instanceof WebAdapter)) throw new Error('the web channel did not start');
  const harness = await createHarness({ adapters: [adapter], ...(options.tools ? { tools: options.tools } : {}), ...(options.env ? { env: options.env } : {}) });
  return { harness, web: adapter, url: adapter.url };
}

/** Opens the console in a new tab and waits until it shows the chat and listens for changes. */
export async function openChat(context: BrowserContext, url: string, options: { name?: string } = {}): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(url);
  await page.locator('body[data-ready="true"]').waitFor();
  if (options.name) await page.fill('#name', options.name);
  return page;
}

export async function say(page: Page, text: string): Promise<void> {
  await page.fill('#text', text);
  await page.click('#send');
  await page.locator('.msg.mine', { hasText: text }).last().waitFor();
}

/** The id this tab speaks as. */
export async function userIdOf(page: Page): Promise<string> {
  const id = await page.evaluate(() => sessionStorage.getItem('parley.user'));
  if (!id) throw new Error('the page has no user id');
  return id;
}
