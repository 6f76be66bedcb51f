// The web admin pages in real Chromium, against `npm start` itself (bin/start.mjs as a child
// process: the wiring of src/main.ts) serving Telegram (the fake Bot API) and the web console on
// one listener. One browser; the admin logs in with a link from `parley web admin-link` and uses
// every section; a second browser (not an admin) and forms and links on another site are refused.
// PARLEY_SHOTS_DIR=<folder> also saves a screenshot of each page at 1280 and 390 px wide.
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROUTES } from '../../adapters/web/admin/routes.ts';
import { runCli } from '../../src/cli/program.ts';
import { killAll, type ParleyProcess, startParley } from '../helpers/child.ts';
import { waitFor } from '../helpers/harness.ts';
import { telegramWorld } from '../helpers/telegram-world.ts';
import { launchBrowser } from './console.ts';

const SHOTS = process.env.PARLEY_SHOTS_DIR;
const cleanups: (() => unknown)[] = [];
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  killAll();
  await browser?.close();
  while (cleanups.length) await cleanups.pop()!();
});

function listen(server: Server, host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as AddressInfo).port)));
}

async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function bodyOf(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => resolve(body));
  });
}

async function cli(args: string[], env: Record<string, string>): Promise<string> {
  let out = '';
  const code = await runCli(args, { out: (text) => (out += text), err: (text) => (out += text), isTTY: false, env, cwd: process.cwd() });
  if (code !== 0) throw new Error(`parley ${args.join(' ')} exited with ${code}: ${out}`);
  return out;
}

async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(SHOTS, `${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
}

const PAGES = {
  'deploy-en.md':
    '---\ntitle: Deploying the API\nsummary: How to deploy the API and roll it back.\ntags: [ops]\n---\n\nRun the deploy script, then watch the health checks. To roll back, redeploy the previous tag.\n',
  'zh/bushu.md':
    '---\ntitle: 部署指南\nsummary: 部署与回滚。\ntags: [ops]\n---\n\n如何部署服务：先运行部署脚本，然后检查健康状态。回滚时重新部署上一个版本。\n',
};

describe('web admin in Chromium, against npm start', () => {
  it('logs in with a one-time link; knowledge, approvals (a Telegram turn resumes), conversations, usage and health work; others are refused', async () => {
    const { tg, model, env: worldEnv } = await telegramWorld(cleanups, 'parley-web-admin-');
    // Where the bot's approved http_request posts to.
    const posted: string[] = [];
    const sink = createServer(async (request, response) => {
      posted.push(`${request.method} ${request.url} ${await bodyOf(request)}`);
      response.end('ok');
    });
    const sinkPort = await listen(sink);
    cleanups.push(() => new Promise((resolve) => sink.close(resolve)));
    // Another site (localhost is not the same site as 127.0.0.1): its pages link and post to the console.
    let evilPage = '';
    const evil = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(evilPage));
    const evilPort = await listen(evil);
    cleanups.push(() => new Promise((resolve) => evil.close(resolve)));

    const port = await freePort();
    const env = { ...worldEnv, PARLEY_WEB: 'on', PARLEY_HTTP_PORT: String(port), PARLEY_ALLOW_PRIVATE_HTTP: 'true' };
    const parley: ParleyProcess = startParley(env);
    await parley.ready();
    const base = `http://127.0.0.1:${port}`;

    // ---- the one-time link, from the CLI, against the running process
    const link = (JSON.parse(await cli(['web', 'admin-link', '--json'], env)) as { adminLoginUrl: string }).adminLoginUrl;
    expect(link.startsWith(`${base}/admin-login?code=`)).toBe(true);
    const admin = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    const page = await admin.newPage();
    // Generous: the whole suite runs beside this test on two cores, and `npm start` shares them.
    page.setDefaultTimeout(30_000);
    await page.goto(link);
    await page.locator('body[data-ready="true"]').waitFor();
    expect(await page.locator('#admin-nav a').allTextContents()).toEqual(['Knowledge', 'Approvals', 'Conversations', 'Usage', 'Health']);
    await shot(page, 'chat');

    // ---- Knowledge: import (dry run, then for real), search in Chinese and English, edit, revisions, revert
    await page.click('#admin-nav >> text=Knowledge');
    await page.locator('h1', { hasText: 'Knowledge' }).waitFor();
    const zip = Buffer.from(zipSync(Object.fromEntries(Object.entries(PAGES).map(([name, text]) => [name, strToU8(text)]))));
    await page.locator('details.panel summary').click();
    await page.setInputFiles('input[name="zip"]', { name: 'pages.zip', mimeType: 'application/zip', buffer: zip });
    await page.click('form[action="/admin/knowledge/import"] button[type="submit"]');
    await page.locator('.report', { hasText: 'Dry run: nothing was written. 2 created, 0 updated, 0 unchanged, 0 failed.' }).waitFor();
    await page.locator('details.panel summary').click();
    await page.setInputFiles('input[name="zip"]', { name: 'pages.zip', mimeType: 'application/zip', buffer: zip });
    await page.uncheck('input[name="dryRun"]');
    await page.click('form[action="/admin/knowledge/import"] button[type="submit"]');
    await page.locator('.report', { hasText: '2 created, 0 updated, 0 unchanged, 0 failed.' }).waitFor();
    expect(await page.locator('.report').textContent()).not.toContain('Dry run');
    await shot(page, 'knowledge-import');

    await page.click('nav.sections >> text=Knowledge');
    await shot(page, 'knowledge-list');
    await page.fill('input[name="q"]', '如何回滚服务');
    await page.click('form.search button');
    const zhHit = page.locator('table.hits tbody tr').first();
    expect(await zhHit.locator('a').textContent()).toBe('部署指南');
    expect(Number(await zhHit.locator('td').nth(2).textContent())).toBeGreaterThan(0);
    await shot(page, 'knowledge-search');
    await page.fill('input[name="q"]', 'roll back the deploy');
    await page.click('form.search button');
    const enHit = page.locator('table.hits tbody tr').first();
    expect(await enHit.locator('a').textContent()).toBe('Deploying the API');
    await enHit.locator('a').click();
    await page.locator('h1', { hasText: 'Deploying the API' }).waitFor();
    const original = await page.inputValue('textarea[name="file"]');
    await page.fill('textarea[name="file"]', original.replace('watch the health checks', 'watch the **canary** dashboard'));
    await page.click('form.editor button[type="submit"]');
    await page.locator('.notice', { hasText: 'revision 2' }).waitFor();
    expect(await page.locator('article.rendered strong').textContent()).toBe('canary');
    await shot(page, 'knowledge-page');
    await page.click('text=Revisions');
    expect(await page.locator('pre.diff .removed').allTextContents()).toEqual([
      '- Run the deploy script, then watch the health checks. To roll back, redeploy the previous tag.',
    ]);
    expect(await page.locator('pre.diff .added').allTextContents()).toEqual([
      '+ Run the deploy script, then watch the **canary** dashboard. To roll back, redeploy the previous tag.',
    ]);
    await shot(page, 'knowledge-revisions');
    await page.click('button:has-text("Revert to revision 1")');
    await page.locator('.notice', { hasText: 'Reverted deploy-en to revision 1 (now revision 3).' }).waitFor();
    await page.click('a:has-text("← Deploying the API")');
    expect(await page.inputValue('textarea[name="file"]')).toBe(original);
    expect(await page.locator('article.rendered strong').count()).toBe(0);

    // ---- Approvals: a tool call in a Telegram chat, approved here; the turn resumes in Telegram
    const alice = tg.user('Alice');
    const chat = tg.privateChat(alice);
    const action = { url: `http://127.0.0.1:${sinkPort}/reports`, method: 'POST', body: 'weekly report' };
    model.enqueue(
      // As OpenAI reports usage (cached tokens in prompt_tokens_details).
      {
        toolCalls: [{ name: 'http_request', arguments: action }],
        usage: { prompt_tokens: 1200, completion_tokens: 30, cached_tokens: 200 },
        profile: 'openai',
      },
      { text: 'Posted the weekly report.', usage: { prompt_tokens: 1500, completion_tokens: 70 }, profile: 'openai' },
    );
    tg.say(alice, chat, 'please post the weekly report');
    const prompt = await waitFor(() => tg.botMessages(chat).find((m) => m.message.reply_markup), 'the approval prompt in Telegram');
    await page.click('nav.sections >> text=Approvals');
    const card = page.locator('article.approval');
    await card.waitFor();
    expect(await card.locator('h3').textContent()).toContain('http_request');
    expect(await card.textContent()).toContain(`Alice · telegram:${chat.id}`);
    expect(await card.locator('pre.args').textContent()).toContain('weekly report');
    await shot(page, 'approvals');
    await card.locator('button', { hasText: 'Approve' }).click();
    await page.locator('.notice', { hasText: 'Approved.' }).waitFor();
    await waitFor(() => tg.botMessages(chat).some((m) => m.message.text === 'Posted the weekly report.'), 'the answer in Telegram');
    expect(posted).toEqual([`POST /reports weekly report`]);
    expect(prompt.message.reply_markup).toBeUndefined();
    expect(prompt.message.text).toContain('Approved by web admin');
    // A fresh load of the page (not the one the decision's redirect showed), before reading it.
    await Promise.all([page.waitForEvent('load'), page.click('nav.sections >> text=Approvals')]);
    expect(await page.locator('article.approval').count()).toBe(0);
    const audit = await page.locator('table.audit tbody').textContent();
    for (const entry of ['knowledge.import', 'knowledge.edit', 'knowledge.revert', 'approve']) expect(audit).toContain(entry);

    // ---- Conversations: the Telegram chat's transcript as the model saw it, exported
    await page.click('nav.sections >> text=Conversations');
    await page.click(`a:has-text("telegram:${chat.id}")`);
    const transcript = page.locator('ol.transcript');
    expect(await transcript.locator('.entry.user .text').textContent()).toBe('please post the weekly report');
    expect(await transcript.locator('.entry.assistant summary').textContent()).toBe('tool calls: http_request');
    expect(await transcript.locator('.entry.tool summary').textContent()).toBe('result of http_request');
    expect(await transcript.locator('.entry.tool pre').isVisible()).toBe(false);
    expect(await transcript.locator('.entry.assistant .text').last().textContent()).toBe('Posted the weekly report.');
    await shot(page, 'conversation');
    const [markdown] = await Promise.all([page.waitForEvent('download'), page.click('text=Export as Markdown')]);
    const exported = readFileSync((await markdown.path())!, 'utf8');
    expect(exported).toContain(`# telegram:${chat.id}`);
    expect(exported).toContain('please post the weekly report');
    expect(exported).toContain('Tool call: `http_request`');
    expect(exported).toContain('Posted the weekly report.');
    const [json] = await Promise.all([page.waitForEvent('download'), page.click('text=Export as JSON')]);
    const conversation = JSON.parse(readFileSync((await json.path())!, 'utf8')) as { transcript: { role: string }[] };
    expect(conversation.transcript.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);

    // ---- Usage: the scripted conversation's tokens, as `parley usage` counts them
    await page.click('nav.sections >> text=Usage');
    const bar = page.locator('.chart g.bar');
    expect(await bar.count()).toBe(1);
    expect(await bar.getAttribute('data-total')).toBe('2800');
    expect(await bar.locator('text.total').textContent()).toBe('2,800');
    const totals = await page.locator('table.usage tbody tr').last().locator('td').allTextContents();
    // One turn (suspended for the approval, then resumed) of two model requests.
    expect(totals).toEqual(['Total', '1', '2,700', '200', '100', '2,800']);
    const byDay = JSON.parse(await cli(['usage', '--json', '--by', 'day'], env)) as { rows: Record<string, number>[] };
    expect(byDay.rows.map((r) => [r.turns, r.promptTokens, r.cachedTokens, r.completionTokens, r.totalTokens])).toEqual([
      [1, 2700, 200, 100, 2800],
    ]);
    await shot(page, 'usage');
    await page.selectOption('select[name="by"]', 'person');
    await page.click('form.filters button');
    expect(await page.locator('table.usage tbody tr').first().locator('td').first().textContent()).toBe(`telegram:${alice.id} (Alice)`);

    // ---- Health
    await page.click('nav.sections >> text=Health');
    const health = await page.locator('main').textContent();
    expect(health).toContain('telegram, web');
    expect(health).toMatch(/telegram\S*\s*\S*parley|telegram/);
    expect(await page.locator('main p.ok').textContent()).toContain('fake-model');
    await shot(page, 'health');

    // ---- A browser that is not the admin: no navigation, 403 everywhere
    const other = await browser.newContext();
    const otherPage = await other.newPage();
    await otherPage.goto(base);
    await otherPage.locator('body[data-ready="true"]').waitFor();
    expect(await otherPage.locator('#admin-nav a').count()).toBe(0);
    for (const [method, path] of ADMIN_ROUTES) {
      const status =
        method === 'GET'
          ? (await otherPage.goto(`${base}${path}`))!.status()
          : await otherPage.evaluate(
              async (target) =>
                (await fetch(target, { method: 'POST', body: new URLSearchParams({ code: 'X', choice: 'approve', slug: 'deploy-en' }) }))
                  .status,
              path,
            );
      expect({ method, path, status }).toEqual({ method, path, status: 403 });
    }
    if (SHOTS) {
      await otherPage.goto(`${base}/admin/knowledge`);
      await shot(otherPage, 'refused');
    }
    await other.close();

    // ---- Another site: its forms and links reach nothing, and do not sign the admin out
    const cookieBefore = (await admin.cookies(base)).find((c) => c.name === 'parley_web_id')!.value;
    model.enqueue({ toolCalls: [{ name: 'http_request', arguments: action }] });
    tg.say(alice, chat, 'post it once more');
    await waitFor(async () => (await fetchPending(base, page)) === 1, 'a second pending approval');
    const code = await page.evaluate(async () => {
      const html = await (await fetch('/admin/approvals')).text();
      return /data-code="([^"]+)"/.exec(html)?.[1];
    });
    for (const [method, path] of ADMIN_ROUTES) {
      evilPage =
        method === 'POST'
          ? `<form method="post" action="${base}${path}"><input name="code" value="${code}"><input name="choice" value="approve"><input name="key" value="telegram:${chat.id}"><input name="slug" value="deploy-en"><input name="revision" value="1"><input name="expected" value="3"><button>go</button></form>`
          : `<a href="${base}${path}">go</a>`;
      await page.goto(`http://localhost:${evilPort}/`);
      const [response] = await Promise.all([page.waitForResponse((r) => r.url().startsWith(`${base}${path}`)), page.click('text=go')]);
      expect({ method, path, status: response.status() }).toEqual({ method, path, status: 403 });
    }
    // A link from the other site to the console's chat page: it opens, and the admin stays the admin.
    evilPage = `<a href="${base}/">go</a>`;
    await page.goto(`http://localhost:${evilPort}/`);
    await page.click('text=go');
    await page.locator('body[data-ready="true"]').waitFor();
    expect((await admin.cookies(base)).find((c) => c.name === 'parley_web_id')!.value).toBe(cookieBefore);
    expect(await page.locator('#admin-nav a').count()).toBe(5);
    expect((await page.goto(`${base}/admin/approvals`))!.status()).toBe(200);
    expect(await page.locator('article.approval').count()).toBe(1);
    expect(posted).toHaveLength(1);

    // The link worked once.
    const again = await browser.newContext();
    expect((await (await again.newPage()).goto(link))!.status()).toBe(403);
    await again.close();
    await admin.close();
    await parley.stop();
  }, 120_000);
});

/** Pending approvals as the admin page lists them. */
async function fetchPending(base: string, page: Page): Promise<number> {
  const html = await page.evaluate(async (url) => (await fetch(url)).text(), `${base}/admin/approvals`);
  return (html.match(/<article class="card approval"/g) ?? []).length;
}
