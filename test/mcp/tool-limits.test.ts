// What tools may add to every model request, enforced by the tool registry for every tool (built-in
// or from an MCP server): a description is cut to 1,024 characters, a tool whose JSON Schema is over
// 8 KB is left out, and tools past the 32 KB budget of the whole list are left out. Each is said
// once, in a warning naming the tool, and shown by the server's status (`parley mcp list`).
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AnyTool, DEFAULT_TOOL_LIMITS, defineTool, ToolRegistry } from '../../src/agent/tools.ts';
import { loadFileConfig } from '../../src/config-file/load.ts';
import { McpManager } from '../../src/mcp/manager.ts';
import { waitFor } from '../helpers/harness.ts';
import { killMcpChildren, writeConfig } from './helpers.ts';

const UNRULY = join(process.cwd(), 'test/fakes/mcp/unruly-server.ts');

const managers: McpManager[] = [];
afterEach(async () => {
  while (managers.length) await managers.pop()!.stop();
  killMcpChildren();
});

function recordingLog() {
  type Line = { msg: string; level: number; tool?: string };
  const lines: Line[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Line) });
  /** Warnings about a tool. */
  return { log, warnings: () => lines.filter((line) => line.level === 40 && line.tool).map((line) => line.msg) };
}

const longWinded = defineTool({
  name: 'long_winded',
  description: `Looks things up. ${'Really. '.repeat(500)}`,
  parameters: z.object({ query: z.string() }),
  approval: 'never',
  execute: async () => 'found',
}) as AnyTool;

function bytesOf(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

describe('tool declaration limits', () => {
  it('cut long descriptions and leave out oversized schemas and tools past the budget, each said once', async () => {
    const { log, warnings } = recordingLog();
    const registry = new ToolRegistry([longWinded], { log });
    const config = writeConfig(
      [
        'mcpServers:',
        '  unruly:',
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [${JSON.stringify(UNRULY)}]`,
        '    env: { UNRULY_FILLERS: "40" }',
        '',
      ].join('\n'),
    );
    const mcp = new McpManager({
      servers: loadFileConfig({ PARLEY_CONFIG: config }, process.cwd()).mcpServers,
      registry,
      defaultTimeoutMs: 5_000,
      log,
      connection: { retry: { initialMs: 200, maxMs: 2_000 } },
    });
    managers.push(mcp);
    await mcp.start();

    const specs = registry.specs();
    const byName = new Map(specs.map((spec) => [spec.name, spec]));
    // Built-in or MCP, the same rule: at most 1,024 characters, cut with an ellipsis.
    for (const name of ['long_winded', 'unruly__long_description']) {
      expect([...byName.get(name)!.description]).toHaveLength(DEFAULT_TOOL_LIMITS.descriptionChars);
      expect(byName.get(name)!.description).toMatch(/…$/);
    }
    expect(byName.has('unruly__big_schema')).toBe(false);
    expect(byName.has('unruly__whoami')).toBe(true);
    expect(specs.reduce((sum, spec) => sum + bytesOf(spec), 0)).toBeLessThanOrEqual(DEFAULT_TOOL_LIMITS.listBytes);

    const tools = mcp.status()[0]!.tools;
    expect(tools.find((t) => t.mcpName === 'big_schema')!.hidden).toMatch(
      /^tool unruly__big_schema left out: its JSON Schema \(\d+(\.\d)? KB\) is over the 8\.0 KB limit$/,
    );
    const overBudget = tools.filter((t) => t.hidden?.includes('budget')).map((t) => t.mcpName);
    expect(overBudget.length).toBeGreaterThan(0);
    expect(overBudget.every((name) => name.startsWith('filler_'))).toBe(true);
    expect(specs.length + overBudget.length + 1).toBe(1 + 3 + 40);

    const expected = [
      'the description of tool long_winded is cut to 1024 characters (it has 4017)',
      expect.stringMatching(/^the description of tool unruly__long_description is cut to 1024 characters \(it has \d+\)$/),
      expect.stringMatching(/^tool unruly__big_schema left out: its JSON Schema/),
      ...overBudget.map((name) => expect.stringMatching(new RegExp(`^tool unruly__${name} left out: .* budget$`))),
    ];
    expect(warnings()).toEqual(expected);

    // The server comes back (a new process lists its tools again): nothing is said twice.
    const { pid } = mcp.status()[0]!;
    process.kill(pid!, 'SIGKILL');
    await waitFor(() => {
      const [server] = mcp.status();
      return server!.state === 'connected' && server!.pid !== pid;
    }, 'the server to be connected again');
    registry.specs();
    expect(warnings()).toEqual(expected);
  });
});
