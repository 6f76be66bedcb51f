// The secrets an MCP server entry takes from the environment (`${VAR}`) never come back out of
// Parley through what the server says: not its stderr (the log, the status the ready block and
// `parley mcp list` show), not an HTTP server's error body, not a tool result, in none of the
// forms a server may repeat them in (as is, URL-encoded, JSON-escaped, base64, a Basic
// credential decoded).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/agent/tools.ts';
import { runCli } from '../../src/cli/program.ts';
import { loadFileConfig } from '../../src/config-file/load.ts';
import { McpManager } from '../../src/mcp/manager.ts';
import { MIN_SECRET_CHARS, redactor } from '../../src/mcp/redact.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';
import { killMcpChildren, writeConfig } from './helpers.ts';

const UNRULY = join(process.cwd(), 'test/fakes/mcp/unruly-server.ts');
const SECRET = 'sk-unruly-7Qx/9+pa ss&word';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
  killMcpChildren();
});

/** Every form of `secret` a server could repeat it in. */
function formsOf(secret: string): string[] {
  return [secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64'), JSON.stringify(secret).slice(1, -1)];
}

function expectNoSecret(text: string, secrets: string[] = [SECRET]): void {
  for (const secret of secrets) for (const form of formsOf(secret)) expect(text).not.toContain(form);
}

function recordingLog() {
  const lines: string[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  return { log, text: () => lines.join('') };
}

function unrulyEntry(name: string, env: Record<string, string>): string {
  return [
    `  ${name}:`,
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [${JSON.stringify(UNRULY)}]`,
    `    env: ${JSON.stringify(env)}`,
  ].join('\n');
}

function startManager(configFile: string, env: Record<string, string>, log: pino.Logger): { mcp: McpManager; registry: ToolRegistry } {
  const registry = new ToolRegistry();
  const mcp = new McpManager({
    servers: loadFileConfig({ PARLEY_CONFIG: configFile, ...env }, process.cwd()).mcpServers,
    registry,
    defaultTimeoutMs: 5_000,
    log,
    startWaitMs: 5_000,
    connection: { retry: { initialMs: 200, maxMs: 2_000 } },
  });
  cleanups.push(() => mcp.stop());
  return { mcp, registry };
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<number> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as AddressInfo).port;
}

describe('secrets of MCP server entries', () => {
  it("are redacted from a failing stdio server's stderr: in the log, the status and parley mcp list", async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's own syntax, written literally
    const config = writeConfig(`mcpServers:\n${unrulyEntry('unruly', { UNRULY_SECRET: '${UNRULY_TOKEN}', UNRULY_EXIT: '1' })}\n`);
    const env = { UNRULY_TOKEN: SECRET };
    const { log, text } = recordingLog();
    const { mcp } = startManager(config, env, log);
    await mcp.start();
    const [status] = mcp.status();
    // What the ready block shows of a server that is down: the reason, with its last output.
    expect(status!.error).toMatch(/last output: unruly: authentication failed for \[redacted\]/);
    expectNoSecret(status!.error!);
    await waitFor(() => text().includes('MCP server stderr') && text().includes('could not connect'), 'the failure in the log');
    expect(text()).toContain('[redacted]');
    expectNoSecret(text());

    let out = '';
    const code = await runCli(['mcp', 'list', '--json', '--timeout', '5s'], {
      out: (chunk) => {
        out += chunk;
      },
      err: (chunk) => {
        out += chunk;
      },
      isTTY: false,
      env: { ...env, PARLEY_CONFIG: config, DATABASE_URL: `file:${join(tempDir('parley-mcp-'), 'parley.db')}` },
      cwd: process.cwd(),
    });
    expect(code).toBe(1);
    expect(out).toContain('authentication failed for [redacted]');
    expectNoSecret(out);
  });

  it("are redacted from an HTTP server's error body, also as a decoded Basic credential and URL-encoded in the address", async () => {
    const credential = Buffer.from('alice:hunter2-very-secret').toString('base64');
    const apiKey = 'key with/odd&chars';
    const port = await listen((req, res) => {
      res.writeHead(401, { 'content-type': 'text/plain' });
      const basic = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
      res.end(`no entry for ${req.url} with ${req.headers.authorization} (${basic})`);
    });
    const config = writeConfig(
      [
        'mcpServers:',
        '  remote:',
        `    url: "http://127.0.0.1:${port}/mcp?key=\${REMOTE_KEY}"`,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's own syntax, written literally
        '    headers: { Authorization: "Basic ${REMOTE_BASIC}" }',
        '',
      ].join('\n'),
    );
    const { log, text } = recordingLog();
    const { mcp } = startManager(config, { REMOTE_BASIC: credential, REMOTE_KEY: apiKey }, log);
    await mcp.start();
    const error = mcp.status()[0]!.error!;
    expect(error).toMatch(
      /^Streamable HTTP error: Error POSTing to endpoint: no entry for \/mcp\?key=\[redacted\] with Basic \[redacted\] \(\[redacted\]\)$/,
    );
    expect(error).toContain('[redacted]');
    const secrets = [credential, apiKey, 'alice:hunter2-very-secret', 'hunter2-very-secret'];
    expectNoSecret(error, secrets);
    await waitFor(() => text().includes('could not connect'), 'the failure in the log');
    expectNoSecret(text(), secrets);
  });

  it('are redacted from tool results the model reads', async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's own syntax, written literally
    const config = writeConfig(`mcpServers:\n${unrulyEntry('unruly', { UNRULY_SECRET: '${UNRULY_TOKEN}' })}\n`);
    const { log, text } = recordingLog();
    const { mcp, registry } = startManager(config, { UNRULY_TOKEN: SECRET }, log);
    await mcp.start();
    const output = await registry.get('unruly__whoami')!.execute({}, { signal: new AbortController().signal, log } as never);
    const content = typeof output === 'string' ? output : output.content;
    expect(content).toContain('I am using token=[redacted] url-encoded=[redacted] base64=[redacted]');
    expectNoSecret(content);
    expectNoSecret(text());
  });

  it(`leave values shorter than ${MIN_SECRET_CHARS} characters alone, and redact every form of longer ones`, () => {
    const redact = redactor(['abc', 'p@ss w0rd!']);
    expect(redact('abc and abcdef')).toBe('abc and abcdef');
    expect(redact('p@ss w0rd! p%40ss%20w0rd! p%40ss+w0rd%21 cEBzcyB3MHJkIQ== cEBzcyB3MHJkIQ')).toBe(
      '[redacted] [redacted] [redacted] [redacted] [redacted]',
    );
    // A base64 secret that is a Basic credential: its decoded form and its password are secret too.
    const basic = redactor([Buffer.from('bob:tr0ub4dor&3').toString('base64')]);
    expect(basic('user bob:tr0ub4dor&3, password tr0ub4dor&3')).toBe('user [redacted], password [redacted]');
  });
});
