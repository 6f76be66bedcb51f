// `parley mcp list`: connects to every MCP server of the configuration file, as the bot would,
// and shows its state, its tools and whether each needs approval (and why). Exit code 1 when a
// server could not be reached, so scripts can check a deployment.
import type { Command } from 'commander';
import { ToolRegistry } from '../agent/tools.ts';
import { loadFileConfig } from '../config-file/load.ts';
import type { FileConfig } from '../config-file/schema.ts';
import { duration } from '../core/env.ts';
import { silentLogger } from '../log.ts';
import { McpManager, type McpServerStatus, type McpToolStatus } from '../mcp/manager.ts';
import { CliError, type CliContext } from './context.ts';

function parseTimeout(value: string): number {
  const parsed = duration(15_000).safeParse(value);
  if (!parsed.success || parsed.data < 100 || parsed.data > 600_000) {
    throw new CliError(`--timeout expects a duration from 100ms to 10m, such as 15s (got "${value}")`);
  }
  return parsed.data;
}

function oneLine(text: string | undefined, max = 60): string {
  const line = (text ?? '').split('\n')[0]!.trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function stateText(server: McpServerStatus): string {
  if (server.state === 'connected')
    return server.connectedVia && server.connectedVia !== server.transport ? `connected (via ${server.connectedVia})` : 'connected';
  if (server.state === 'disabled') return 'disabled';
  return oneLine(`not connected: ${server.error ?? 'no answer in time'}`, 80);
}

function toolRow(server: string, tool: McpToolStatus): string[] {
  if (tool.hidden) return [`${server}: ${tool.mcpName}`, '—', `hidden (${tool.hidden})`, oneLine(tool.description)];
  return [tool.name!, tool.approval === 'never' ? 'no' : 'required', tool.reason ?? '', oneLine(tool.title ?? tool.description)];
}

/** Connects to each server as the bot would (then disconnects) and says how each went. */
export async function connectMcpServers(ctx: CliContext, servers: FileConfig['mcpServers'], timeoutMs: number): Promise<McpServerStatus[]> {
  const manager = new McpManager({
    servers,
    registry: new ToolRegistry(),
    defaultTimeoutMs: ctx.config.agent.toolTimeoutMs,
    overrides: ctx.config.approvals.overrides,
    log: silentLogger,
    startWaitMs: timeoutMs,
    connection: { connectTimeoutMs: timeoutMs },
  });
  try {
    await manager.start();
    return manager.status();
  } finally {
    await manager.stop();
  }
}

export function registerMcpCommands(program: Command, ctx: CliContext): void {
  const mcp = program.command('mcp').description('MCP servers of parley.config.yaml (or PARLEY_CONFIG) and their tools');
  mcp
    .command('list')
    .description('Connect to each MCP server and list its state, its tools and whether they need approval')
    .option('--timeout <duration>', 'how long to wait for the servers', '15s')
    .option('--json', 'machine-readable output')
    .action(async (options: { timeout: string; json?: boolean }) => {
      const file = loadFileConfig(ctx.io.env, ctx.io.cwd);
      const servers = await connectMcpServers(ctx, file.mcpServers, parseTimeout(options.timeout));
      const unreachable = servers.filter((s) => s.state !== 'connected' && s.state !== 'disabled');
      if (options.json) {
        ctx.json({ config: file.path ?? null, servers });
      } else if (servers.length === 0) {
        ctx.line(
          file.path
            ? `No MCP servers in ${file.path}.`
            : 'No MCP servers configured: add mcpServers to parley.config.yaml, or name a file in PARLEY_CONFIG.',
        );
      } else {
        ctx.line(`MCP servers (${file.path})`);
        ctx.table(
          ['server', 'transport', 'state', 'tools'],
          servers.map((s) => [s.name, s.transport, stateText(s), s.tools.filter((t) => !t.hidden).length]),
        );
        const rows = servers.flatMap((s) => s.tools.map((tool) => toolRow(s.name, tool)));
        if (rows.length > 0) ctx.table(['tool', 'approval', 'because', 'description'], rows);
      }
      if (unreachable.length > 0) {
        throw new CliError(`could not reach ${unreachable.map((s) => s.name).join(', ')}`, 1);
      }
    });
}
