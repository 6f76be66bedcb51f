// Approval prompts in the web console, in real Chromium: buttons that resolve in place, tool
// activity, and group rooms where only the requester's click counts.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type AnyTool } from '../../src/agent/tools.ts';
import { settled } from '../helpers/harness.ts';
import { closeConsoles, launchBrowser, openChat, say, startConsole, userIdOf, type WebConsole } from './console.ts';

const deployed: string[] = [];

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a service to production',
  parameters: z.object({ service: z.string() }),
  approval: 'always',
  activity: 'deploying',
  describe: ({ service }) => `deploy ${service} to production`,
  async execute({ service }) {
    deployed.push(service);
    return `deployed ${service}`;
  },
}) as AnyTool;

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
  deployed.length = 0;
  web = await startConsole({ tools: [deploy] });
  context = await browser.newContext();
});
afterEach(async () => {
  await context?.close();
  await closeConsoles();
});

function prompt(page: Page) {
  return page.locator('.msg.bot', { hasText: 'Approval needed' });
}

describe('web console: approvals', () => {
  it('shows a gated tool prompt whose Approve button resolves it in place, then the answer', async () => {
    web.harness.model.enqueue({ toolCalls: [{ name: 'deploy', arguments: { service: 'api' } }] }, { text: 'Deployed **api** for you.' });
    const page = await openChat(context, web.url, { name: 'Alice' });
    await say(page, 'deploy the api please');

    await prompt(page).waitFor();
    expect(await prompt(page).textContent()).toContain('deploy api to production');
    expect(await prompt(page).locator('.buttons button').allTextContents()).toEqual(['Approve', 'Deny', 'Always allow here']);
    expect(deployed).toEqual([]);

    await prompt(page).getByRole('button', { name: 'Approve', exact: true }).click();
    const resolved = page.locator('.msg.bot', { hasText: 'Approved by Alice' });
    await resolved.waitFor();
    expect(await resolved.locator('button').count()).toBe(0);
    expect(await page.locator('.msg.bot', { hasText: 'Approval needed' }).count()).toBe(0);
    await page.locator('#toast', { hasText: 'Approved.' }).waitFor();

    await page.locator('.activity.done', { hasText: 'deploying' }).waitFor();
    await page.locator('.msg.bot', { hasText: 'Deployed api for you.' }).waitFor();
    expect(deployed).toEqual(['api']);
    const turns = await settled(web.harness.store, `web:dm-${await userIdOf(page)}`);
    expect(turns.map((t) => t.status)).toEqual(['done']);
  });

  it("in a group room, refuses another person's click (to them alone) and takes the requester's", async () => {
    web.harness.model.enqueue({ toolCalls: [{ name: 'deploy', arguments: { service: 'web' } }] }, { text: 'The web service is deployed.' });
    // Two browsers (separate cookies), so two people.
    const bobsBrowser = await browser.newContext();
    const alice = await openChat(context, `${web.url}/?room=ops`, { name: 'Alice' });
    const bob = await openChat(bobsBrowser, `${web.url}/?room=ops`, { name: 'Bob' });
    expect(await userIdOf(alice)).not.toBe(await userIdOf(bob));

    // Not addressed to the bot: the group sees it, the bot does not answer.
    await say(bob, 'morning all');
    await alice.bringToFront();
    await say(alice, '@Parley deploy the web service');
    await alice.locator('.msg.other', { hasText: 'morning all' }).waitFor();
    await bob.locator('.msg.other', { hasText: 'deploy the web service' }).waitFor();
    await prompt(bob).waitFor();
    await prompt(alice).waitFor();

    // Bob renames his tab "Alice": names are cosmetic, the server knows he is not the requester.
    await bob.fill('#name', 'Alice');
    await prompt(bob).getByRole('button', { name: 'Approve', exact: true }).click();
    await bob.locator('#toast', { hasText: 'Only Alice (who asked) or an admin can decide this.' }).waitFor();
    // Bob's click was answered (the toast came back), and it changed nothing for anyone.
    expect(await prompt(bob).locator('.buttons button').count()).toBe(3);
    expect(await alice.locator('#toast').isVisible()).toBe(false);
    expect(await prompt(alice).locator('.buttons button').count()).toBe(3);
    expect(deployed).toEqual([]);

    await prompt(alice).getByRole('button', { name: 'Approve', exact: true }).click();
    for (const page of [alice, bob]) {
      await page.locator('.msg.bot', { hasText: 'Approved by Alice' }).waitFor();
      await page.locator('.msg.bot', { hasText: 'The web service is deployed.' }).waitFor();
      expect(await page.locator('.msg.bot button').count()).toBe(0);
    }
    expect(deployed).toEqual(['web']);
    await settled(web.harness.store, 'web:room-ops');
    const userMessages = web.harness.model.requests[0]!.body.messages.filter((m) => m.role === 'user');
    // Only Alice's message reached the model (group messages carry the speaker's name).
    expect(userMessages.map((m) => m.content)).toEqual(['[Alice] @Parley deploy the web service']);
    await bobsBrowser.close();
  });

  it("lets the browser that used the admin login link decide someone else's request", async () => {
    web.harness.model.enqueue({ toolCalls: [{ name: 'deploy', arguments: { service: 'db' } }] }, { text: 'The database is deployed.' });
    const alice = await openChat(context, `${web.url}/?room=ops`, { name: 'Alice' });
    await say(alice, '@Parley deploy the database');
    await prompt(alice).waitFor();

    const operatorsBrowser = await browser.newContext();
    const carol = await operatorsBrowser.newPage();
    carol.setDefaultTimeout(10_000);
    await carol.goto(web.web.adminLoginUrl!);
    expect(new URL(carol.url()).pathname).toBe('/');
    await carol.locator('#admin-badge').waitFor();
    await carol.goto(`${web.url}/?room=ops`);
    await carol.locator('body[data-ready="true"]').waitFor();
    await carol.fill('#name', 'Carol');
    await prompt(carol).getByRole('button', { name: 'Approve', exact: true }).click();
    await alice.locator('.msg.bot', { hasText: 'Approved by Carol' }).waitFor();
    await alice.locator('.msg.bot', { hasText: 'The database is deployed.' }).waitFor();
    expect(deployed).toEqual(['db']);
    // Alice is no admin: her page shows no badge.
    expect(await alice.locator('#admin-badge').isVisible()).toBe(false);
    await operatorsBrowser.close();
  });
});
