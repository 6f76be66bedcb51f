// `parley mcp list` run as the real command (a child process), against real MCP servers: both
// transports, the old HTTP+SSE fallback, an unreachable server, a broken configuration file.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv } from '../helpers/child.ts';
import { tempDir } from '../helpers/harness.ts';
import { httpEntry, killMcpChildren, readLog, startHttpServer, stdioEntry, writeConfig } from './helpers.ts';

afterEach(killMcpChildren);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function parley(args: string[], env: Record<string, string>, cwd = process.cwd()): Promise<Run> {
  const child = spawn(process.execPath, [join(process.cwd(), 'bin/parley.mjs'), ...args], {
    cwd,
    env: { ...cleanEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // No timer of its own: a command that never exits fails the test by the test's timeout.
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

interface ListedServer {
  name: string;
  transport: string;
  connectedVia?: string;
  state: string;
  error?: string;
  tools: { name?: string; mcpName: string; approval?: string; reason?: string; hidden?: string }[];
}

describe('parley mcp list', () => {
  it('shows both servers, their tools and who must approve them (table and --json)', async () => {
    const dir = tempDir('parley-mcp-');
    const http = await startHttpServer(join(dir, 'http.log'));
    const config = writeConfig(
      [
        'mcpServers:',
        stdioEntry('notes', join(dir, 'stdio.log'), '    tools: { deny: [crash, wait] }'),
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's own syntax, written literally
        httpEntry('tickets', `http://127.0.0.1:${http.port}/mcp`, '    headers: { X-Test-Header: "${TEST_HEADER}" }'),
        '',
      ].join('\n'),
      dir,
    );
    const env = { PARLEY_CONFIG: config, TEST_HEADER: 'from-env', PARLEY_APPROVAL_TICKETS__PID: 'always' };
    const table = await parley(['mcp', 'list'], env);
    expect(table.stderr).toBe('');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/│ notes\s+│ stdio\s+│ connected\s+│ 6\s+│/);
    expect(table.stdout).toMatch(/│ tickets\s+│ http\s+│ connected\s+│ 8\s+│/);
    expect(table.stdout).toMatch(/│ notes__read_note\s+│ no\s+│ read-only\s+│ Read a note/);
    expect(table.stdout).toMatch(/│ tickets__delete_note\s+│ required\s+│ destructive\s+│ Deletes a note for good/);
    expect(table.stdout).toMatch(/│ tickets__pid\s+│ required\s+│ PARLEY_APPROVAL_TICKETS__PID/);
    expect(table.stdout).toMatch(/│ notes: crash\s+│ —\s+│ hidden \(in the deny list\)/);

    const json = await parley(['mcp', 'list', '--json'], env);
    expect(json.code).toBe(0);
    const listed = JSON.parse(json.stdout) as { config: string; servers: ListedServer[] };
    expect(listed.config).toBe(config);
    expect(listed.servers.map((s) => [s.name, s.transport, s.state])).toEqual([
      ['notes', 'stdio', 'connected'],
      ['tickets', 'http', 'connected'],
    ]);
    const tickets = listed.servers[1]!.tools;
    expect(tickets.map((t) => t.name)).toEqual([
      'tickets__read_note',
      'tickets__delete_note',
      'tickets__pid',
      'tickets__crash',
      'tickets__wait',
      'tickets__fail',
      'tickets__picture',
      'tickets__add_tool',
    ]);
    expect(tickets[0]).toMatchObject({ mcpName: 'read_note', approval: 'never', reason: 'read-only' });
    // The header came from the environment, not from the file.
    expect(
      readLog(join(dir, 'http.log'))
        .filter((e) => 'header' in e)
        .map((e) => e.header),
    ).toEqual(['from-env', 'from-env']);
    // Both runs started the stdio server and stopped it again.
    const started = readLog(join(dir, 'stdio.log')).filter((e) => e.started);
    expect(started).toHaveLength(2);
    for (const { pid } of started) expect(() => process.kill(pid, 0)).toThrow();
  });

  it('falls back to HTTP+SSE for an old server', async () => {
    const dir = tempDir('parley-mcp-');
    const old = await startHttpServer(join(dir, 'sse.log'), ['--sse']);
    const config = writeConfig(`mcpServers:\n${httpEntry('old', `http://127.0.0.1:${old.port}/sse`)}\n`, dir);
    const run = await parley(['mcp', 'list', '--json'], { PARLEY_CONFIG: config });
    expect(run.code).toBe(0);
    const [server] = (JSON.parse(run.stdout) as { servers: ListedServer[] }).servers;
    expect(server).toMatchObject({ name: 'old', transport: 'http', connectedVia: 'sse', state: 'connected' });
    expect(server!.tools).toHaveLength(8);
  });

  it('a server it cannot reach is listed as not connected, with exit code 1', async () => {
    const dir = tempDir('parley-mcp-');
    const config = writeConfig(
      [
        'mcpServers:',
        stdioEntry('notes', join(dir, 'stdio.log')),
        '  gone:',
        `    command: ${JSON.stringify(join(dir, 'no-such-server'))}`,
        '',
      ].join('\n'),
      dir,
    );
    const run = await parley(['mcp', 'list'], { PARLEY_CONFIG: config });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/│ notes\s+│ stdio\s+│ connected/);
    expect(run.stdout).toMatch(/│ gone\s+│ stdio\s+│ not connected: .*ENOENT/);
    expect(run.stderr).toBe('parley: could not reach gone\n');
  });

  it('a broken configuration file: one line per mistake, exit code 1, nothing started', async () => {
    const dir = tempDir('parley-mcp-');
    const config = writeConfig(
      [
        'mcpServers:',
        stdioEntry('notes', join(dir, 'stdio.log')),
        '  web:',
        '    url: ftp://example.com/mcp',
        '  files:',
        '    comand: npx',
        '  tickets:',
        '    url: https://example.com/mcp',
        '    approval: { delete_ticket: sometimes }',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's own syntax, written literally
        '    headers: { Authorization: "Bearer ${UNSET_TOKEN_FOR_TEST}" }',
        '',
      ].join('\n'),
      dir,
    );
    const run = await parley(['mcp', 'list'], { PARLEY_CONFIG: config });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      `parley: Invalid configuration in ${config} (4 mistakes):`,
      `  ${config}:7: mcpServers.web.url: expects an http:// or https:// URL`,
      `  ${config}:8: mcpServers.files: needs command (a server started over stdio) or url (a server over HTTP); it has comand`,
      `  ${config}:12: mcpServers.tickets.approval.delete_ticket: expects always or never`,
      `  ${config}:13: mcpServers.tickets.headers.Authorization: uses \${UNSET_TOKEN_FOR_TEST}, which is not set in the environment`,
    ]);
    expect(readLog(join(dir, 'stdio.log'))).toEqual([]);
  });
});
