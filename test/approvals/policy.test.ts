import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type AnyTool } from '../../src/agent/tools.ts';
import { closeAll, createHarness, settled } from '../helpers/harness.ts';
import { ping, promptsIn, runs, transfer, transferCall, waitForStatus } from './helpers.ts';

afterEach(closeAll);
beforeEach(() => {
  runs.length = 0;
});

const undeclared = defineTool({
  name: 'plugin_action',
  description: 'A tool that does not declare an approval policy (e.g. from a plugin)',
  parameters: z.object({}),
  async execute() {
    runs.push('plugin_action');
    return 'done';
  },
}) as AnyTool;

const conditional = defineTool({
  name: 'refund',
  description: 'Refunds; large refunds need approval',
  parameters: z.object({ amount: z.number() }),
  approval: ({ amount }) => amount > 100,
  async execute({ amount }) {
    runs.push(`refund ${amount}`);
    return 'refunded';
  },
}) as AnyTool;

describe('approval policies', () => {
  it('configuration overrides a tool policy both ways', async () => {
    const h = await createHarness({
      tools: [transfer, ping],
      env: { PARLEY_APPROVAL_TRANSFER_MONEY: 'never', PARLEY_APPROVAL_PING: 'always' },
    });
    h.model.enqueue({ toolCalls: [transferCall(), { name: 'ping', arguments: {} }] });
    await h.adapter.say('go');
    const prompts = await promptsIn(h.adapter);
    await waitForStatus(h, 'memory:dm-u-alice', 'awaiting_approval');
    expect(runs).toEqual(['transfer 10 Bob']);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]!.text).toContain('Tool `ping`');
  });

  it('a tool without a declared policy is gated; a policy function decides from the arguments', async () => {
    const h = await createHarness({ tools: [undeclared, conditional] });
    h.model.enqueue({
      toolCalls: [
        { name: 'plugin_action', arguments: {} },
        { name: 'refund', arguments: { amount: 20 } },
        { name: 'refund', arguments: { amount: 500 } },
      ],
    });
    await h.adapter.say('do it');
    const prompts = await promptsIn(h.adapter, 2);
    await waitForStatus(h, 'memory:dm-u-alice', 'awaiting_approval');
    expect(runs).toEqual(['refund 20']);
    expect(
      prompts.map((p) => (p.text.includes('`plugin_action`') ? 'plugin_action' : p.text.includes('"amount": 500') ? 'refund 500' : '?')),
    ).toEqual(['plugin_action', 'refund 500']);
  });

  it('invalid arguments to a gated tool are reported without asking anyone', async () => {
    const h = await createHarness({ tools: [transfer] });
    h.model.enqueue({ toolCalls: [{ name: 'transfer_money', arguments: { amount: 'lots' } }] }, { text: 'Sorry.' });
    await h.adapter.say('send money');
    await settled(h.store, 'memory:dm-u-alice');
    expect(h.adapter.prompts()).toHaveLength(0);
    expect(h.model.requests[1]!.body.messages.at(-1)!.content).toMatch(/^Invalid arguments for transfer_money/);
  });
});
