// Shared set-up for the web console tests: the real core (harness) with the web adapter mounted on
// a real HTTP host on a free port, and headless Chromium driven by playwright-core.
import { existsSync, rmSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createAdminPort } from '../../src/admin/port.ts';
import type { AnyTool } from '../../src/agent/tools.ts';
import { HttpHost } from '../../src/http/host.ts';
import { silentLogger } from '../../src/log.ts';
import { WebAdapter } from '../../adapters/web/adapter.ts';
import { webChannel } from '../../adapters/web/index.ts';
import { closeAll, createHarness, tempDir, type Harness } from '../helpers/harness.ts';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

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
  host: HttpHost;
  url: string;
  /** Where the console keeps its per-install files (beside the database, as npm start). */
  dataDir: string;
}

const hosts: HttpHost[] = [];
const dirs: string[] = [];

export interface ConsoleOptions {
  tools?: AnyTool[];
  /** Core environment (PARLEY_ADMINS, ...). */
  env?: Record<string, string>;
  /** The web channel's environment (PARLEY_WEB_TOKEN, PARLEY_WEB_MAX_STREAMS, ...). */
  webEnv?: Record<string, string>;
  noModel?: boolean;
}

/** The console as npm start wires it: host → adapter.routes → app (with the channel's admins) → listen. */
export async function startConsole(options: ConsoleOptions = {}): Promise<WebConsole> {
  const dataDir = tempDir('parley-web-');
  dirs.push(dataDir);
  // One environment, as in npm start (the channel reads PARLEY_ADMINS too, to show who is an admin).
  const adapter = await webChannel.fromEnv({ env: { ...options.env, ...options.webEnv }, log: silentLogger, botName: 'Parley', dataDir });
  if (!(adapter instanceof WebAdapter)) throw new Error('the web channel did not start');
  const host = new HttpHost({
    host: '127.0.0.1',
    port: 0,
    log: silentLogger,
    readiness: { pingDatabase: async () => {}, channels: ['web'], phase: () => 'started' },
  });
  hosts.push(host);
  adapter.routes(host);
  await host.listen();
  const admins = [options.env?.PARLEY_ADMINS, ...adapter.admins.map((id) => `web:${id}`)].filter(Boolean).join(',');
  const harness = await createHarness({
    adapters: [adapter],
    env: { ...options.env, PARLEY_ADMINS: admins },
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.noModel ? { noModel: true } : {}),
  });
  // As src/main.ts: the admin pages reach the bot through the admin port.
  adapter.useAdmin(createAdminPort({ config: harness.config, store: harness.store, app: harness.app }));
  return { harness, web: adapter, host, url: adapter.url, dataDir };
}

/** Closes every console's host and harness (call from afterEach). */
export async function closeConsoles(): Promise<void> {
  while (hosts.length) await hosts.pop()!.close();
  await closeAll();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
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

/** The id the server gave this page's browser (it sees only its own). */
export async function userIdOf(page: Page): Promise<string> {
  const id = await page.evaluate(async () => ((await (await fetch('/api/chat')).json()) as { you: { id: string } }).you.id);
  if (!id) throw new Error('the page has no user id');
  return id;
}
