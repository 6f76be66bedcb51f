// The system prompt's context sections (session memory, retrieved knowledge) are built once per
// turn, not once per round: again only after a tool that changes what they show (remember,
// forget), after steering messages, or when one failed (it is tried again).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, type ContextSection } from '../../src/agent/agent.ts';
import { type AnyTool, defineTool, ToolRegistry } from '../../src/agent/tools.ts';
import { silentLogger } from '../../src/log.ts';
import { MemoryJournal, ScriptedModel, type ScriptedReply, steeredOnce } from '../helpers/memory-journal.ts';

const SETTINGS = { maxRounds: 10, loopWarnAt: 3, loopStopAt: 5, toolTimeoutMs: 5_000, toolResultMaxChars: 16_000, contextTokens: 24_000 };

const tool = (name: string, refreshesContext: boolean) =>
  defineTool({
    name,
    description: name,
    parameters: z.object({ n: z.number() }),
    approval: 'never',
    refreshesContext,
    async execute(args) {
      return `${name} ${args.n}`;
    },
  }) as AnyTool;

const rounds = (first: string, second: string): ScriptedReply[] => [
  { toolCalls: [{ id: 'c1', name: first, arguments: { n: 1 } }] },
  { toolCalls: [{ id: 'c2', name: second, arguments: { n: 2 } }] },
  { text: 'Done.' },
];

/** A section that shows how many times it was built, failing on the builds listed in `failOn`. */
function countingSection(failOn: number[] = []) {
  let builds = 0;
  const section: ContextSection = async () => {
    builds++;
    if (failOn.includes(builds)) throw new Error('the memory table is busy');
    return `<memory>build ${builds}</memory>`;
  };
  return { section, builds: () => builds };
}

async function turn(script: ScriptedReply[], section: ContextSection, steer = false) {
  const journal = new MemoryJournal();
  const model = new ScriptedModel(...script);
  const agent = new Agent({
    journal,
    llm: model,
    tools: new ToolRegistry([tool('look', false), tool('note', true)]),
    hooks: { beforeToolCall: async () => ({ allow: true }), settle: async () => new Map() },
    settings: SETTINGS,
    prompt: { botName: 'Parley' },
    sections: [section],
    log: silentLogger,
  });
  const run = steeredOnce(journal, journal.begin('go'), steer ? 'and more' : undefined);
  expect(await agent.start(run)).toEqual({ status: 'done', text: 'Done.' });
  // What each round's system prompt showed.
  return model.requests.map((request) => /build \d+/.exec(String(request.messages[0]?.content))?.[0]);
}

describe('context sections per turn', () => {
  it('a 3-round turn with tools that change nothing builds them once', async () => {
    const { section, builds } = countingSection();
    expect(await turn(rounds('look', 'look'), section)).toEqual(['build 1', 'build 1', 'build 1']);
    expect(builds()).toBe(1);
  });

  it('builds them again for the round after a tool that refreshes context ran', async () => {
    const { section, builds } = countingSection();
    expect(await turn(rounds('note', 'look'), section)).toEqual(['build 1', 'build 2', 'build 2']);
    expect(builds()).toBe(2);
  });

  it('builds them again after steering messages', async () => {
    const { section } = countingSection();
    expect(await turn(rounds('look', 'look'), section, true)).toEqual(['build 1', 'build 2', 'build 2']);
  });

  it('tries a failed section again in the next round', async () => {
    const { section } = countingSection([1]);
    expect(await turn(rounds('look', 'look'), section)).toEqual([undefined, 'build 2', 'build 2']);
  });
});
