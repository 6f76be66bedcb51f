import { expect } from 'vitest';
import { z } from 'zod';
import { defineTool, type AnyTool } from '../../src/agent/tools.ts';
import type { MemoryAdapter, FakeMessage } from '../fakes/memory-adapter.ts';
import type { Harness } from '../helpers/harness.ts';
import { waitFor } from '../helpers/harness.ts';

export const runs: string[] = [];

export const transfer = defineTool({
  name: 'transfer_money',
  description: 'Sends money',
  parameters: z.object({ amount: z.number(), to: z.string() }),
  approval: 'always',
  describe: ({ amount, to }) => `send ${amount} EUR to ${to}`,
  async execute({ amount, to }) {
    runs.push(`transfer ${amount} ${to}`);
    return `sent ${amount} EUR to ${to}`;
  },
}) as AnyTool;

export const ping = defineTool({
  name: 'ping',
  description: 'Harmless',
  parameters: z.object({}),
  approval: 'never',
  async execute() {
    runs.push('ping');
    return 'pong';
  },
}) as AnyTool;

export function transferCall(amount = 10, to = 'Bob', id?: string) {
  return { ...(id ? { id } : {}), name: 'transfer_money', arguments: { amount, to } };
}

/** Waits for `count` approval prompts in the chat and returns them. */
export async function promptsIn(adapter: MemoryAdapter, count = 1, chatId?: string): Promise<FakeMessage[]> {
  return waitFor(() => {
    const prompts = adapter.prompts(chatId);
    return prompts.length >= count ? prompts : undefined;
  }, `${count} approval prompt(s)`);
}

async function turnStatus(h: Harness, sessionKey: string): Promise<string | undefined> {
  const session = await h.store.sessions.getByKey(sessionKey);
  if (!session) return undefined;
  const [latest] = await h.store.turns.list({ sessionId: session.id, limit: 1 });
  return latest?.status;
}

export async function waitForStatus(h: Harness, sessionKey: string, status: string): Promise<void> {
  await waitFor(async () => (await turnStatus(h, sessionKey)) === status, `turn ${status}`);
}

export function expectNoButtons(message: FakeMessage): void {
  expect(message.buttons.flat()).toEqual([]);
}
