// MCP test servers as real child processes (the notes server over stdio, or over HTTP on
// 127.0.0.1), the log each writes of what reached it, and a harness whose app has an MCP manager
// wired the way src/main.ts wires it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadFileConfig } from '../../src/config-file/load.ts';
import { silentLogger } from '../../src/log.ts';
import { McpManager, type McpManagerOptions } from '../../src/mcp/manager.ts';
import { createHarness, tempDir, waitFor, type Harness, type HarnessOptions } from '../helpers/harness.ts';

const STDIO_SERVER = join(process.cwd(), 'test/fakes/mcp/stdio-server.ts');
const HTTP_SERVER = join(process.cwd(), 'test/fakes/mcp/http-server.ts');

interface LogEntry {
  pid: number;
  rpc?: string;
  tool?: string;
  arguments?: unknown;
  effect?: string;
  id?: string;
  started?: string;
  /** Names of the environment variables a stdio server started with. */
  env?: string[];
  header?: string | null;
}

export function readLog(file: string): LogEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogEntry);
}

export function callsOf(file: string, tool: string): LogEntry[] {
  return readLog(file).filter((e) => e.rpc === 'tools/call' && e.tool === tool);
}

const children = new Set<ChildProcess>();

interface HttpServer {
  port: number;
  child: ChildProcess;
  /** SIGKILL, and wait until it is gone. */
  kill9(): Promise<void>;
}

/** Starts the notes server over HTTP (`--sse`: the old transport only); resolves once it listens. */
export async function startHttpServer(logFile: string, args: string[] = []): Promise<HttpServer> {
  const child = spawn(process.execPath, [HTTP_SERVER, ...args], {
    env: { ...process.env, MCP_LOG_FILE: logFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const port = await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`MCP HTTP server exited: ${out}`);
    const match = /listening (\d+)/.exec(out);
    return match ? Number(match[1]) : undefined;
  }, 'the MCP HTTP server to listen');
  return {
    port,
    child,
    async kill9() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export function killMcpChildren(): void {
  for (const child of children) child.kill('SIGKILL');
}

/** A parley.config.yaml in a fresh folder; returns its path. */
export function writeConfig(text: string, dir = tempDir('parley-mcp-')): string {
  const file = join(dir, 'parley.config.yaml');
  writeFileSync(file, text);
  return file;
}

/** YAML for the stdio notes server, writing what reaches it to `logFile`. */
export function stdioEntry(name: string, logFile: string, extra = ''): string {
  return [
    `  ${name}:`,
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [${JSON.stringify(STDIO_SERVER)}]`,
    `    env: { MCP_LOG_FILE: ${JSON.stringify(logFile)} }`,
    ...(extra ? [extra] : []),
  ].join('\n');
}

export function httpEntry(name: string, url: string, extra = ''): string {
  return [`  ${name}:`, `    url: ${JSON.stringify(url)}`, ...(extra ? [extra] : [])].join('\n');
}

interface McpHarness extends Harness {
  mcp: McpManager;
}

const managers: McpManager[] = [];

/** A harness whose tools include the MCP servers of the config file `configFile`. */
export async function createMcpHarness(
  configFile: string,
  options: HarnessOptions & { manager?: Partial<Omit<McpManagerOptions, 'servers' | 'registry' | 'log'>> } = {},
): Promise<McpHarness> {
  const h = await createHarness({ ...options, start: false });
  const file = loadFileConfig({ PARLEY_CONFIG: configFile }, process.cwd());
  const mcp = new McpManager({
    servers: file.mcpServers,
    registry: h.app.tools,
    defaultTimeoutMs: h.config.agent.toolTimeoutMs,
    overrides: h.config.approvals.overrides,
    log: silentLogger,
    connection: { retry: { initialMs: 200, maxMs: 2_000 } },
    ...options.manager,
  });
  managers.push(mcp);
  await mcp.start();
  await h.app.start();
  return Object.assign(h, { mcp });
}

export async function stopManagers(): Promise<void> {
  while (managers.length) await managers.pop()!.stop();
}
