// Session memory: small key/value facts the bot was asked to keep, shown to the model as a
// <session-context> snapshot and changed with the remember / forget tools.
import { z } from 'zod';
import type { ContextSection } from '../agent/agent.ts';
import { defineTool, type AnyTool } from '../agent/tools.ts';
import type { MemoryFactRecord } from '../store/types.ts';
import type { MemoryRepo } from '../store/repos/memory.ts';

const MAX_FACTS = 50;
const MAX_KEY_LENGTH = 64;
const MAX_VALUE_LENGTH = 500;

function memorySnapshot(facts: MemoryFactRecord[]): string {
  if (facts.length === 0) return '';
  const lines = facts.map((fact) => `- ${fact.key}: ${fact.value.replace(/\s+/g, ' ')}`);
  return [
    '<session-context>',
    'Facts you were asked to remember in this conversation (use the forget tool to remove one):',
    ...lines,
    '</session-context>',
  ].join('\n');
}

/** The <session-context> section of the system prompt. */
export function memoryContextSection(memory: Pick<MemoryRepo, 'list'>): ContextSection {
  return async ({ session, preread }) => memorySnapshot(preread?.memory ?? (await memory.list(session.id))) || undefined;
}

export function createMemoryTools(memory: Pick<MemoryRepo, 'set' | 'delete' | 'list' | 'count'>): AnyTool[] {
  const remember = defineTool({
    name: 'remember',
    description:
      'Keep a fact for the rest of this conversation (survives restarts and /reset), e.g. a preference or a name. Use a short key; remembering an existing key replaces its value.',
    parameters: z.object({
      key: z.string().trim().min(1).max(MAX_KEY_LENGTH).describe('Short name of the fact, e.g. "preferred_language"'),
      value: z.string().trim().min(1).max(MAX_VALUE_LENGTH).describe('The fact itself'),
    }),
    approval: 'never',
    idempotent: true,
    refreshesContext: true,
    activity: { key: 'activity.remembering' },
    async execute({ key, value }, ctx) {
      const facts = await memory.list(ctx.sessionId);
      if (!facts.some((f) => f.key === key) && facts.length >= MAX_FACTS) {
        return { content: `Memory is full (${MAX_FACTS} facts). Forget something first.`, isError: true };
      }
      await memory.set(ctx.sessionId, key, value);
      return `Remembered ${key}.`;
    },
  });
  const forget = defineTool({
    name: 'forget',
    description: 'Remove a remembered fact by its key.',
    parameters: z.object({ key: z.string().trim().min(1).max(MAX_KEY_LENGTH) }),
    approval: 'never',
    idempotent: true,
    refreshesContext: true,
    activity: { key: 'activity.forgetting' },
    async execute({ key }, ctx) {
      const removed = await memory.delete(ctx.sessionId, key);
      return removed ? `Forgot ${key}.` : { content: `There is no remembered fact named ${key}.`, isError: true };
    },
  });
  return [remember, forget] as AnyTool[];
}
