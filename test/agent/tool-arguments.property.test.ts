// Whatever arguments the model sends to a built-in tool, the runner answers with a result: an error
// result with a clear message for bad input, never a throw or an unhandled rejection. Runs the tools
// exactly as `npm start` registers them (builtinTools via createApp), on a temporary database, with
// http_request refusing private addresses (the only URLs generated are private, so nothing leaves
// this machine).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseArguments, runToolCalls } from '../../src/agent/tool-runner.ts';
import type { ToolContext, ToolRegistry } from '../../src/agent/tools.ts';
import { silentLogger } from '../../src/log.ts';
import { closeAll, createHarness, type Harness } from '../helpers/harness.ts';

let h: Harness;
let registry: ToolRegistry;
let ctx: ToolContext;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  h = await createHarness({ noModel: true, start: false, env: { PARLEY_ALLOW_PRIVATE_HTTP: 'false' } });
  registry = h.app.tools;
  const chat = { channel: 'memory', chatId: 'dm-prop', chatType: 'direct' as const };
  const session = await h.store.sessions.ensure({ key: 'memory:dm-prop', ...chat });
  ctx = {
    sessionId: session.id,
    sessionKey: session.key,
    turnId: 'turn-prop',
    chat,
    requester: { id: 'u-prop', displayName: 'Prop' },
    signal: new AbortController().signal,
    log: silentLogger,
  };
});

afterAll(async () => {
  await closeAll();
  process.off('unhandledRejection', onUnhandled);
});

const OPTIONS = { timeoutMs: 5_000, maxResultChars: 4_000 };
const PRIVATE_URLS = ['http://127.0.0.1:9/x', 'https://10.1.2.3/', 'http://[::1]:9/', 'http://192.168.0.1/a?b=c', 'http://0.0.0.0/'];
const PROGRAMMING_ERROR = /TypeError|ReferenceError|RangeError|Cannot read properties|is not a function|undefined is not/;

const rawArguments = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.json({ maxDepth: 3 }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.constantFrom('', '   ', 'null', '[]', '{', '"x"', '{"url":', '\u0000', '{"__proto__":{"x":1}}'),
);

interface PropertySchema {
  type?: string;
  format?: string;
  enum?: string[];
}

/** A value of the JSON Schema type the model is told about (URLs: private ones only). */
function typedValue(schema: PropertySchema) {
  if (schema.enum)
    return fc.oneof(
      fc.constantFrom(...schema.enum),
      fc.constantFrom(...schema.enum).map((v) => ` ${v.toLowerCase()} `),
    );
  switch (schema.type) {
    case 'string':
      return schema.format === 'uri'
        ? fc.constantFrom(...PRIVATE_URLS)
        : fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }));
    case 'integer':
    case 'number':
      return fc.integer({ min: -3, max: 30 });
    case 'array':
      return fc.array(fc.string({ maxLength: 10 }), { maxLength: 4 });
    case 'object':
      return fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }), { maxKeys: 3 });
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Objects with the tool's own parameters, each missing, well typed or holding anything, plus a stray key. */
function shapedArguments(name: string) {
  const spec = registry.specs().find((s) => s.name === name)!;
  const properties = (spec.parameters as { properties?: Record<string, PropertySchema> }).properties ?? {};
  const fields = Object.fromEntries(
    Object.entries(properties).map(([key, schema]) => [
      key,
      fc.oneof({ arbitrary: typedValue(schema), weight: 4 }, { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 }),
    ]),
  );
  return fc
    .tuple(fc.record(fields, { requiredKeys: [] }), fc.option(fc.jsonValue({ maxDepth: 1 }), { freq: 4 }))
    .map(([args, stray]) => JSON.stringify(stray === null ? args : { ...args, unexpected: stray }));
}

const validRuns = new Map<string, number>();

async function runOnce(name: string, raw: string) {
  const results = await runToolCalls([{ id: 'call_p', name, arguments: raw }], registry, ctx, OPTIONS);
  expect(results).toHaveLength(1);
  const [result] = results;
  expect(result!.callId).toBe('call_p');
  expect(typeof result!.content).toBe('string');
  expect(result!.content.trim()).not.toBe('');
  expect(result!.content).not.toMatch(PROGRAMMING_ERROR);
  const tool = registry.get(name);
  if (!tool) {
    expect(result).toMatchObject({ isError: true });
    expect(result!.content).toMatch(/^Unknown tool /);
    return;
  }
  const parsed = parseArguments(tool, raw);
  if (parsed.ok) validRuns.set(name, (validRuns.get(name) ?? 0) + 1);
  else {
    // Bad input: an error result that names the tool and says what is wrong.
    expect(result!.isError).toBe(true);
    expect(result!.content.startsWith(`Invalid arguments for ${name}: `)).toBe(true);
  }
}

describe('tool arguments from the model (property)', () => {
  it('every built-in tool is registered as npm start registers it', () => {
    expect(registry.names().sort()).toEqual([
      'forget',
      'http_request',
      'read_knowledge_page',
      'remember',
      'search_knowledge',
      'write_knowledge_page',
    ]);
  });

  it('arbitrary argument text to any tool (or an unknown one) always gives a result', async () => {
    const names = fc.constantFrom(...registry.names(), 'no_such_tool', '');
    await fc.assert(
      fc.asyncProperty(names, rawArguments, async (name, raw) => runOnce(name, raw)),
      { seed: 42, numRuns: 400 },
    );
  });

  it('arguments shaped like each tool’s parameters, with any values, always give a result', async () => {
    const cases = fc.constantFrom(...registry.names()).chain((name) => fc.tuple(fc.constant(name), shapedArguments(name)));
    await fc.assert(
      fc.asyncProperty(cases, async ([name, raw]) => runOnce(name, raw)),
      { seed: 42, numRuns: 400 },
    );
    expect(unhandled).toEqual([]);
    // The generators reach every tool's body, not only its validation.
    for (const name of registry.names()) expect(validRuns.get(name) ?? 0, name).toBeGreaterThan(0);
  });
});
