// `npm start` (the real entry point, a child process) with MCP servers: they start with Parley,
// show in the ready block and stop with it; a broken configuration file stops start-up.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killAll, startParley } from '../helpers/child.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';
import { killMcpChildren, readLog, stdioEntry, writeConfig } from './helpers.ts';

afterEach(() => {
  killAll();
  killMcpChildren();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('MCP servers with npm start', () => {
  it('start with Parley, appear in the ready block, and stop with it', async () => {
    const dir = tempDir('parley-mcp-');
    const log = join(dir, 'stdio.log');
    const config = writeConfig(`mcpServers:\n${stdioEntry('notes', log, '    tools: { allow: [read_note, delete_note] }')}\n`, dir);
    const parley = startParley({
      DATABASE_URL: `file:${join(dir, 'parley.db')}`,
      PARLEY_CONFIG: config,
      OPENAI_API_KEY: 'sk-not-for-mcp',
      TELEGRAM_BOT_TOKEN: '',
      PARLEY_WEB_SECRET: 'x'.repeat(40),
    });
    await parley.ready();
    expect(parley.output()).toMatch(/\n {2}MCP {7}notes: stdio, 2 tool\(s\)\n/);
    const [started] = readLog(log).filter((e) => e.started);
    expect(alive(started!.pid)).toBe(true);
    // Only a basic environment and the server's own env: none of Parley's settings or secrets.
    expect(started!.env!.filter((name) => !['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'].includes(name))).toEqual(['MCP_LOG_FILE']);
    expect(await parley.stop()).toBe(0);
    expect(alive(started!.pid)).toBe(false);
  });

  it('a broken configuration file stops start-up with one line per mistake', async () => {
    const dir = tempDir('parley-mcp-');
    const config = writeConfig(
      'mcpServers:\n  notes:\n    command: node\n    args: [server.js]\n    approval: [read_note]\n  other: {}\nsurprise: 1\n',
      dir,
    );
    const parley = startParley({ DATABASE_URL: `file:${join(dir, 'parley.db')}`, PARLEY_CONFIG: config });
    await waitFor(() => parley.child.exitCode !== null, 'parley to exit', 20_000);
    expect(parley.child.exitCode).toBe(1);
    expect(parley.output().trimEnd().split('\n')).toEqual([
      `parley: Invalid configuration in ${config} (3 mistakes):`,
      `  ${config}:5: mcpServers.notes.approval: expects a map of tool name to always or never`,
      `  ${config}:6: mcpServers.other: needs command (a server started over stdio) or url (a server over HTTP)`,
      `  ${config}:7: surprise: unknown key (expected one of: mcpServers, models, prompt)`,
    ]);
  });

  it('secrets in a server entry never reach the log, even at debug level when the server fails', async () => {
    const dir = tempDir('parley-mcp-');
    const secret = 'sk-mcp-secret-4f1d9a';
    const config = writeConfig(
      [
        'mcpServers:',
        '  broken:',
        `    command: ${JSON.stringify(join(dir, 'no-such-server'))}`,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's own syntax, written literally
        '    args: ["--token=${MCP_TEST_SECRET}"]',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's own syntax, written literally
        '    env: { API_KEY: "${MCP_TEST_SECRET}" }',
        '  remote:',
        '    url: http://127.0.0.1:9/mcp',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's own syntax, written literally
        '    headers: { Authorization: "Bearer ${MCP_TEST_SECRET}" }',
        '',
      ].join('\n'),
      dir,
    );
    const parley = startParley({
      DATABASE_URL: `file:${join(dir, 'parley.db')}`,
      PARLEY_CONFIG: config,
      MCP_TEST_SECRET: secret,
      PARLEY_LOG_LEVEL: 'debug',
    });
    await parley.ready();
    expect(parley.output()).toMatch(/MCP {7}broken: stdio, not connected yet \(spawn .*no-such-server ENOENT\)/);
    expect(parley.output()).toMatch(/ {12}remote: http, not connected yet/);
    expect(parley.output()).toContain('could not connect to MCP server');
    expect(await parley.stop()).toBe(0);
    expect(parley.output()).not.toContain(secret);
  });
});
