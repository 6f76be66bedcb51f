// MCP server lifecycles seen from outside: a server killed by someone else comes back, one that
// keeps dying is retried with backoff (and says why), one that never answers does not hold up
// start-up and is still stopped with Parley.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/agent/tools.ts';
import { loadFileConfig } from '../../src/config-file/load.ts';
import { silentLogger } from '../../src/log.ts';
import { McpManager } from '../../src/mcp/manager.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';
import { killMcpChildren, readLog, stdioEntry, writeConfig } from './helpers.ts';

const managers: McpManager[] = [];
afterEach(async () => {
  while (managers.length) await managers.pop()!.stop();
  killMcpChildren();
});

function manager(config: string, options: { startWaitMs?: number } = {}): { mcp: McpManager; registry: ToolRegistry } {
  const registry = new ToolRegistry();
  const mcp = new McpManager({
    servers: loadFileConfig({ PARLEY_CONFIG: config }, process.cwd()).mcpServers,
    registry,
    defaultTimeoutMs: 5_000,
    log: silentLogger,
    connection: { retry: { initialMs: 200, maxMs: 2_000 } },
    ...options,
  });
  managers.push(mcp);
  return { mcp, registry };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A command line for a node one-liner. */
function nodeEntry(name: string, script: string): string {
  return [`  ${name}:`, `    command: ${JSON.stringify(process.execPath)}`, `    args: ["-e", ${JSON.stringify(script)}]`].join('\n');
}

describe('MCP server lifecycle', () => {
  it('a server killed from outside is started again without anyone calling it', async () => {
    const dir = tempDir('parley-mcp-');
    const log = join(dir, 'stdio.log');
    const { mcp, registry } = manager(writeConfig(`mcpServers:\n${stdioEntry('notes', log)}\n`, dir));
    await mcp.start();
    const [first] = readLog(log).filter((e) => e.started);
    process.kill(first!.pid, 'SIGKILL');
    const restarted = await waitFor(() => readLog(log).filter((e) => e.started)[1], 'a second server process');
    await waitFor(
      () => mcp.status()[0]!.state === 'connected' && mcp.status()[0]!.pid === restarted.pid,
      'the new process to be connected',
    );
    // Its tools were there all along and still work.
    const tool = registry.get('notes__pid')!;
    const output = await tool.execute({}, { signal: new AbortController().signal, log: silentLogger } as never);
    expect(output).toEqual({ content: String(restarted.pid), isError: false });
  });

  it('a server that keeps dying is retried with backoff, and the status says why', async () => {
    const dir = tempDir('parley-mcp-');
    const starts = join(dir, 'starts');
    const script = `require('fs').appendFileSync(${JSON.stringify(starts)}, 'x'); console.error('boom: no API key'); process.exit(3)`;
    const { mcp } = manager(writeConfig(`mcpServers:\n${nodeEntry('flaky', script)}\n`, dir));
    await mcp.start();
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    // Without backoff this one-liner would have run dozens of times by now: 200 ms doubling allows 5.
    const count = readFileSync(starts, 'utf8').length;
    expect(count).toBeGreaterThanOrEqual(2);
    expect(count).toBeLessThanOrEqual(7);
    expect(mcp.status()[0]).toMatchObject({ name: 'flaky', state: 'reconnecting', tools: [] });
    expect(mcp.status()[0]!.error).toContain('boom: no API key');
  });

  it('a server that never answers does not hold up start-up and is stopped with Parley', async () => {
    const dir = tempDir('parley-mcp-');
    const pidFile = join(dir, 'pid');
    const script = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); process.stdin.resume(); setInterval(() => {}, 1000)`;
    const { mcp, registry } = manager(writeConfig(`mcpServers:\n${nodeEntry('mute', script)}\n`, dir), { startWaitMs: 500 });
    await mcp.start();
    expect(mcp.status()[0]).toMatchObject({ name: 'mute', state: 'connecting', tools: [] });
    expect(registry.names()).toEqual([]);
    const pid = Number(await waitFor(() => readFileSync(pidFile, 'utf8'), 'the server to start'));
    expect(alive(pid)).toBe(true);
    await mcp.stop();
    await waitFor(() => !alive(pid), 'the server process to end');
  });
});
