import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type AnyTool } from '../../src/agent/tools.ts';
import type { FakeDiscord, InteractionState, StoredMessage } from '../fakes/discord/index.ts';
import { settled, waitFor } from '../helpers/harness.ts';
import { closeDiscord, sessionKey, startDiscord } from './helpers.ts';

afterEach(closeDiscord);

function deployTool(deployed: string[]): AnyTool {
  return defineTool({
    name: 'deploy',
    description: 'Deploy a service to production',
    parameters: z.object({ service: z.string() }),
    approval: 'always',
    describe: ({ service }) => `deploy ${service} to production`,
    async execute({ service }) {
      deployed.push(service);
      return `deployed ${service}`;
    },
  }) as AnyTool;
}

function promptIn(dc: FakeDiscord, channel: Parameters<FakeDiscord['botMessages']>[0]): Promise<StoredMessage> {
  return waitFor(() => dc.botMessages(channel).find((m) => m.message.components.length > 0), 'the approval prompt');
}

function interaction(dc: FakeDiscord, id: string): InteractionState {
  return dc.interactions.get(id)!;
}

const EPHEMERAL = 64;

/** The ephemeral text the clicker got (the ack's ephemeral reply, or a follow-up), once there is one. */
function whisperTo(dc: FakeDiscord, id: string): Promise<string> {
  return waitFor(() => {
    const state = interaction(dc, id);
    const note = [state.original, ...state.followUps].find((m) => m?.ephemeral && m.message.content);
    return note ? note.message.content : undefined;
  }, 'an ephemeral answer');
}

describe('discord: approval prompts with buttons', () => {
  it('refuses a stranger ephemerally, acks the requester within 3 s although edits take 5 s, runs the tool once', async () => {
    const deployed: string[] = [];
    const { dc, h } = await startDiscord({ tools: [deployTool(deployed)] });
    const alice = dc.user('Alice');
    const bob = dc.user('Bob');
    const { channels } = dc.guild('Ops');
    const ops = channels[0]!;
    h.model.enqueue(
      { text: 'I will deploy it.', toolCalls: [{ name: 'deploy', arguments: { service: 'api' } }] },
      { text: 'Deployed api: all health checks are green.' },
    );

    const request = dc.say(alice, ops, 'deploy the api please', { mention: true });
    const prompt = await promptIn(dc, ops);
    expect(prompt.message.content).toContain('Approval needed');
    expect(prompt.message.content).toContain('deploy api to production');
    const buttons = prompt.message.components.flatMap((row) => row.components ?? []);
    expect(buttons.map((b) => b.label)).toEqual(['Approve', 'Deny', 'Always allow here']);
    expect(buttons.map((b) => b.style)).toEqual([1, 4, 2]);
    for (const b of buttons) expect(b.custom_id!.length).toBeLessThanOrEqual(100);
    expect(JSON.stringify(buttons)).not.toContain('api');
    const pending = await h.store.approvals.list({ status: 'pending', limit: 10 });
    expect(pending).toHaveLength(1);

    // A stranger: acknowledged with an ephemeral refusal (type 4, flag 64), nothing changes.
    const strangerClick = dc.click(bob, prompt.message, dc.buttonOf(prompt.message, 'Approve'));
    expect(await whisperTo(dc, strangerClick)).toBe('Only Alice (who asked) or an admin can decide this.');
    expect(interaction(dc, strangerClick).ack).toMatchObject({ type: 4, flags: EPHEMERAL });
    expect(prompt.versions).toHaveLength(1);
    expect(prompt.message.components).toHaveLength(1);
    expect(deployed).toEqual([]);
    expect((await h.store.approvals.list({ status: 'pending', limit: 10 })).map((a) => a.id)).toEqual(pending.map((a) => a.id));

    // The requester, while every message edit takes 5 s to answer.
    dc.editDelayMs = 5_000;
    const aliceClick = dc.click(alice, prompt.message, dc.buttonOf(prompt.message, 'Approve'));
    const ack = await waitFor(() => interaction(dc, aliceClick).ack, 'the acknowledgement', 10_000);
    expect(ack.at - interaction(dc, aliceClick).createdAt).toBeLessThan(3_000);
    expect(interaction(dc, aliceClick).refusedCallbacks).toBe(0);
    // Ack first: the outcome is the acknowledgement itself, before the (slow) prompt edit.
    expect(ack).toMatchObject({ type: 4, flags: EPHEMERAL });
    expect(interaction(dc, aliceClick).original?.message.content).toBe('Approved.');
    await waitFor(
      () => prompt.message.components.length === 0 && prompt.message.content.includes('Approved by Alice'),
      'the outcome without buttons',
      20_000,
    );
    dc.editDelayMs = 0;
    const answer = await waitFor(
      () => dc.botMessages(ops).find((m) => m.message.content === 'Deployed api: all health checks are green.'),
      'the answer',
      20_000,
    );
    expect(answer.message.message_reference?.message_id).toBe(request.id);
    await settled(h.store, sessionKey(ops), 20_000);
    expect(deployed).toEqual(['api']);
    // The prompt is edited with the bot's own message edit, never through an interaction token.
    expect(dc.callsTo('PATCH', new RegExp(`^/channels/${ops.id}/messages/${prompt.message.id}$`)).length).toBeGreaterThanOrEqual(1);
    expect(dc.callsTo('PATCH', /^\/webhooks\//)).toEqual([]);
  }, 40_000);

  it('a double click and a forged custom_id change nothing and still get an answer', async () => {
    const deployed: string[] = [];
    const { dc, h } = await startDiscord({ tools: [deployTool(deployed)] });
    const alice = dc.user('Alice');
    const dm = dc.dm(alice);
    h.model.enqueue({ toolCalls: [{ name: 'deploy', arguments: { service: 'db' } }] }, { text: 'Understood, I did not deploy.' });

    dc.say(alice, dm, 'deploy the db');
    const prompt = await promptIn(dc, dm);
    const deny = dc.buttonOf(prompt.message, 'Deny');
    const first = dc.click(alice, prompt.message, deny);
    const second = dc.click(alice, prompt.message, deny);
    const forged = dc.click(alice, prompt.message, 'forged-token-that-points-nowhere');
    for (const id of [first, second, forged]) await waitFor(() => interaction(dc, id).ack, 'every click acknowledged');
    await waitFor(() => prompt.message.components.length === 0 && prompt.message.content.includes('Denied by Alice'), 'the outcome');
    await waitFor(() => dc.botMessages(dm).some((m) => m.message.content === 'Understood, I did not deploy.'), 'the answer');
    await settled(h.store, sessionKey(dm));
    const answers = await Promise.all([first, second, forged].map((id) => whisperTo(dc, id)));
    expect(answers.filter((a) => a === 'Denied.')).toHaveLength(1);
    expect(answers.some((a) => /already/i.test(a))).toBe(true);
    expect(answers[2]).not.toBe('Denied.');
    expect(deployed).toEqual([]);
    const decided = await h.store.approvals.list({ limit: 10 });
    expect(decided.map((a) => a.status)).toEqual(['denied']);
    expect(dc.botMessages(dm).filter((m) => m.message.components.length > 0)).toHaveLength(0);
  });

  it("an expired approval (long after any interaction token) is shown on the prompt by the bot's own edit", async () => {
    const deployed: string[] = [];
    const { dc, h } = await startDiscord({ tools: [deployTool(deployed)], coreEnv: { PARLEY_APPROVAL_TTL: '1s' } });
    const alice = dc.user('Alice');
    const dm = dc.dm(alice);
    h.model.enqueue(
      { toolCalls: [{ name: 'deploy', arguments: { service: 'web' } }] },
      { text: 'The request expired, so nothing was deployed.' },
    );
    dc.say(alice, dm, 'deploy web');
    const prompt = await promptIn(dc, dm);
    await waitFor(() => prompt.message.components.length === 0 && /Expired/.test(prompt.message.content), 'the expiry on the prompt');
    // A click after the expiry is answered and changes nothing.
    const late = dc.click(alice, prompt.message, 'stale-button');
    expect(await whisperTo(dc, late)).toBeTruthy();
    await settled(h.store, sessionKey(dm));
    expect(deployed).toEqual([]);
    expect(dc.callsTo('PATCH', new RegExp(`^/channels/${dm.id}/messages/${prompt.message.id}$`)).every((c) => c.status === 200)).toBe(true);
  });
});
