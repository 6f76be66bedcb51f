// A project's plugins and tools inside the real core (the in-memory channel, the fake model, a
// SQLite file): what each hook can do, and what happens when one throws or never answers.
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { PluginHost } from '../../src/framework/plugin-host.ts';
import { definePlugin, defineTool, z } from '../../src/index.ts';
import type { TurnEndInfo } from '../../src/index.ts';
import { closeDiscord, startDiscord } from '../discord/helpers.ts';
import { closeAll, createHarness, settled, waitFor } from '../helpers/harness.ts';

afterEach(async () => {
  await closeDiscord();
  await closeAll();
});

const never = () => new Promise<never>(() => {});
const SESSION = 'memory:dm-u-alice';

/** A tool that records the arguments it ran with. */
function recordingTool(ran: unknown[], approval: 'never' | 'always' = 'never') {
  return defineTool({
    name: 'send_note',
    description: 'Send a note',
    parameters: z.object({ to: z.string(), text: z.string() }),
    approval,
    describe: ({ to }) => `Send a note to ${to}`,
    async execute(args) {
      ran.push(args);
      return `sent to ${args.to}`;
    },
  });
}

describe('plugins in the core', () => {
  it('onMessage drops a message before it becomes a turn; one that throws or hangs lets messages through', async () => {
    const seen: string[] = [];
    const h = await createHarness({
      plugins: [
        definePlugin({
          name: 'filter',
          onMessage: (message) => {
            seen.push(message.text);
            return message.text.includes('buy now') ? { drop: true } : undefined;
          },
        }),
        definePlugin({
          name: 'broken',
          hookTimeoutMs: 50,
          onMessage: (message) => (message.text.includes('hang') ? never() : Promise.reject(new Error('broken plugin'))),
        }),
      ],
    });
    h.model.setFallback(() => ({ text: 'answered' }));
    await h.adapter.say('buy now, cheap watches');
    await h.adapter.say('hello');
    await waitFor(() => h.adapter.lastBotMessage()?.text === 'answered', 'the answer to hello');
    await h.adapter.say('hang on, one more thing');
    await waitFor(() => h.adapter.botMessages().length === 2, 'the answer to the second message');
    await settled(h.store, SESSION);
    expect(seen).toEqual(['buy now, cheap watches', 'hello', 'hang on, one more thing']);
    // The dropped message reached neither the model nor the conversation.
    expect(h.model.requests.map((r) => r.body.messages.filter((m) => m.role === 'user').at(-1)?.content)).toEqual([
      'hello',
      'hang on, one more thing',
    ]);
  });

  it('beforeTool rewrites a call before it is written, held for approval and run', async () => {
    const ran: unknown[] = [];
    const h = await createHarness({
      userTools: [recordingTool(ran, 'always')],
      plugins: [
        definePlugin({
          name: 'redact',
          beforeTool: (call) => {
            const args = call.args as { to: string; text: string };
            return { args: { ...args, text: args.text.replace(/\d{4,}/g, '[number]') } };
          },
        }),
      ],
    });
    h.model.enqueue({ toolCalls: [{ id: 'n1', name: 'send_note', arguments: { to: 'Bob', text: 'card 12345678' } }] }, { text: 'sent' });
    await h.adapter.say('tell Bob my card number');
    const prompt = await waitFor(() => h.adapter.prompts()[0], 'the approval prompt');
    expect(prompt.text).toContain('[number]');
    expect(prompt.text).not.toContain('12345678');
    await h.adapter.click(prompt.id, 'Approve');
    await waitFor(() => h.adapter.lastBotMessage()?.text === 'sent', 'the answer');
    expect(ran).toEqual([{ to: 'Bob', text: 'card [number]' }]);
    // The conversation holds the call as it ran.
    const [, second] = h.model.requests;
    const call = second!.body.messages.find((m) => m.role === 'assistant')?.tool_calls?.[0];
    expect(JSON.parse(call!.function.arguments)).toEqual({ to: 'Bob', text: 'card [number]' });
  });

  it('beforeTool fails closed: a call it cannot check (throws, hangs) is not run and the model is told; the turn goes on', async () => {
    const ran: unknown[] = [];
    const h = await createHarness({
      userTools: [recordingTool(ran)],
      plugins: [
        definePlugin({
          name: 'guard',
          hookTimeoutMs: 50,
          beforeTool: (call) => ((call.args as { to: string }).to === 'Hang' ? never() : Promise.reject(new Error('policy server down'))),
        }),
      ],
    });
    h.model.enqueue(
      {
        toolCalls: [
          { id: 'a', name: 'send_note', arguments: { to: 'Bob', text: 'hi' } },
          { id: 'b', name: 'send_note', arguments: { to: 'Hang', text: 'hi' } },
        ],
      },
      { text: 'could not send' },
    );
    await h.adapter.say('send two notes');
    await waitFor(() => h.adapter.lastBotMessage()?.text === 'could not send', 'the answer');
    expect(ran).toEqual([]);
    const results = h.model.requests[1]!.body.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(results).toEqual([
      'Not run: the guard plugin could not check this call (policy server down).',
      'Not run: the guard plugin could not check this call (did not answer within 50 ms).',
    ]);
  });

  it('afterTool replaces a result; one that throws keeps it; context sections add to the turn, a failing one is left out', async () => {
    const ran: unknown[] = [];
    const h = await createHarness({
      userTools: [recordingTool(ran)],
      plugins: [
        definePlugin({
          name: 'stamp',
          afterTool: (call) => ({ content: `${call.result.content} [checked]` }),
          contextSections: [() => 'Notes go out within the hour.', () => Promise.reject(new Error('no section today'))],
        }),
        definePlugin({ name: 'broken', afterTool: () => Promise.reject(new Error('broken after')) }),
      ],
    });
    h.model.enqueue({ toolCalls: [{ id: 'a', name: 'send_note', arguments: { to: 'Bob', text: 'hi' } }] }, { text: 'done' });
    await h.adapter.say('send a note');
    await waitFor(() => h.adapter.lastBotMessage()?.text === 'done', 'the answer');
    const [first, second] = h.model.requests;
    expect(JSON.stringify(first!.body.messages)).toContain('Notes go out within the hour.');
    expect(JSON.stringify(first!.body.messages)).not.toContain('no section today');
    expect(second!.body.messages.find((m) => m.role === 'tool')?.content).toBe('sent to Bob [checked]');
    // The turn's context is shown the same in its later request.
    expect(JSON.stringify(second!.body.messages)).toContain('Notes go out within the hour.');
  });

  it('model observers and onTurnEnd see each request, answer and turn; one that never answers holds nothing up', async () => {
    const requests: string[] = [];
    const answers: string[] = [];
    const ended: TurnEndInfo[] = [];
    const h = await createHarness({
      plugins: [
        definePlugin({
          name: 'metrics',
          beforeModelRequest: (request) => void requests.push(`${request.model}: ${request.messages.at(-1)?.content}`),
          afterModelResponse: (response) => void answers.push(response.ok ? response.completion.text : response.error),
          onTurnEnd: (turn) => void ended.push(turn),
        }),
        definePlugin({ name: 'stuck', beforeModelRequest: never, afterModelResponse: never, onTurnEnd: never }),
      ],
    });
    h.model.enqueue({ text: 'hi there' });
    await h.adapter.say('hello');
    await waitFor(() => ended.length === 1, 'the end of the turn');
    expect(requests).toEqual(['fake-model: hello']);
    expect(answers).toEqual(['hi there']);
    expect(ended[0]).toMatchObject({ status: 'done', text: 'hi there', rounds: 1 });
  });

  it('commands: answered without the model, listed in /help; one that throws is answered with a short failure', async () => {
    const h = await createHarness({
      plugins: [
        definePlugin({
          name: 'weather',
          commands: [
            {
              name: 'weather',
              description: 'The weather in a city',
              argument: { name: 'city', description: 'City', required: true },
              run: async (city, ctx) => {
                await ctx.memory.set('last_city', city);
                return `Sunny in ${city} (asked by ${ctx.sender.displayName})`;
              },
            },
            { name: 'broken', description: 'Always fails', run: () => Promise.reject(new Error('nope')) },
          ],
        }),
      ],
    });
    await h.adapter.say('/weather Lisbon');
    await waitFor(() => h.adapter.lastBotMessage()?.text === 'Sunny in Lisbon (asked by Alice)', 'the answer');
    await h.adapter.say('/broken');
    await waitFor(
      () => h.adapter.lastBotMessage()?.text === 'The /broken command failed. An admin can find the cause in the log.',
      'the failure',
    );
    await h.adapter.say('/help');
    await waitFor(() => h.adapter.lastBotMessage()?.text.includes('- /weather <city>: The weather in a city'), 'the help text');
    expect(h.model.requests).toHaveLength(0);
    const session = await h.store.sessions.getByKey(SESSION);
    expect(await h.store.memory.list(session!.id)).toMatchObject([{ key: 'last_city', value: 'Lisbon' }]);
  });
});

describe('a failing hook is logged with its plugin', () => {
  it('names the plugin, the hook and what happened instead', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const host = new PluginHost([definePlugin({ name: 'moderation', hookTimeoutMs: 20, onMessage: never })], {
      log,
      memory: { list: async () => [], set: async () => {}, delete: async () => false },
    });
    const inbound = {
      channel: 'memory',
      chatId: 'c',
      chatType: 'direct' as const,
      messageId: '1',
      eventId: 'e',
      sender: { id: 'u', displayName: 'U', isBot: false },
      text: 'hi',
      attachments: [],
      mentionsBot: false,
      repliesToBot: false,
      receivedAt: new Date(),
    };
    expect(await host.admit(inbound)).toBe(true);
    const entry = JSON.parse(lines[0]!) as { plugin: string; hook: string; msg: string };
    expect(entry).toMatchObject({ plugin: 'moderation', hook: 'onMessage' });
    expect(entry.msg).toBe('plugin moderation: onMessage failed (did not answer within 20 ms); the message goes on');
  });
});

describe('a plugin command on Discord', () => {
  it('is registered as a slash command with its argument, and answered in the channel', async () => {
    const plugin = definePlugin({
      name: 'weather',
      commands: [
        {
          name: 'weather',
          description: 'The weather in a city',
          argument: { name: 'city', description: 'City', required: true },
          run: (city) => `Sunny in ${city}`,
        },
      ],
    });
    const { dc } = await startDiscord({ plugins: [plugin] });
    const global = dc.commands.get('global') as { name: string; options: { name: string; required: boolean }[] }[];
    expect(global.map((c) => c.name)).toEqual(['help', 'stop', 'reset', 'approve', 'deny', 'revoke', 'model', 'weather']);
    expect(global.at(-1)!.options).toEqual([expect.objectContaining({ name: 'city', required: true })]);
    const alice = dc.user('Alice');
    const general = dc.guild('Team').channels[0]!;
    dc.slash(alice, general, 'weather', { city: 'Lisbon' });
    await waitFor(() => dc.botMessages(general).some((m) => m.message.content.includes('Sunny in Lisbon')), 'the answer');
  });
});

describe("a project's tools follow the built-in tools' rules", () => {
  it('their own timeout, the result size limit and the loop detector apply', async () => {
    const h = await createHarness({
      env: { PARLEY_TOOL_RESULT_MAX_CHARS: '200', PARLEY_LOOP_WARN: '2' },
      userTools: [
        defineTool({
          name: 'slow',
          description: 'Never finishes',
          parameters: z.object({}),
          approval: 'never',
          timeoutMs: 50,
          execute: never,
        }),
        defineTool({
          name: 'long',
          description: 'A long result',
          parameters: z.object({ n: z.number() }),
          approval: 'never',
          idempotent: true,
          execute: () => 'x'.repeat(1_000),
        }),
      ],
    });
    h.model.enqueue(
      {
        toolCalls: [
          { id: 's', name: 'slow', arguments: {} },
          { id: 'l1', name: 'long', arguments: { n: 1 } },
        ],
      },
      { toolCalls: [{ id: 'l2', name: 'long', arguments: { n: 1 } }] },
      { text: 'done' },
    );
    await h.adapter.say('go');
    await waitFor(() => h.adapter.lastBotMessage()?.text === 'done', 'the answer');
    const [slow, long] = h.model.requests[1]!.body.messages.filter((m) => m.role === 'tool');
    expect(slow!.content).toBe('Error: slow timed out after 50 ms.');
    expect(long!.content).toHaveLength(200);
    expect(long!.content).toContain('[truncated: showing 200 of 1000 characters]');
    const repeated = h.model.requests[2]!.body.messages.filter((m) => m.role === 'tool').at(-1)!;
    expect(repeated.content).toMatch(/^\[Warning: you have called long with these same arguments 2 times/);
    // At most once across crashes: the call that is not idempotent was recorded as started before it ran.
    const [turn] = await settled(h.store, SESSION);
    expect([...(await h.store.toolStarts.started(turn!.id))]).toEqual(['s']);
  });
});
