// Every configured MCP server, started with Parley and stopped with it, and their tools kept in
// the tool registry: a server's tools are replaced as a whole whenever it (re)connects or says
// its list changed. A server that is down keeps its last tools; calls to them wait briefly for
// the reconnection, then get an error result.
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { ToolRefusedError, type ToolRegistry } from '../agent/tools.ts';
import type { ApprovalOverride } from '../config/config.ts';
import type { McpServerConfig } from '../config-file/schema.ts';
import { errorText } from '../core/errors.ts';
import type { Logger } from '../log.ts';
import { loggable } from './loggable.ts';
import { McpConnection, type ConnectionOptions, type ConnectionState } from './connection.ts';
import { exposedNames, hiddenBecause, matchesPattern } from './names.ts';
import { mcpApproval } from './policy.ts';
import { mcpTool } from './tool.ts';

export interface McpToolStatus {
  /** The name the model sees (absent when the tool is hidden or unusable). */
  name?: string;
  mcpName: string;
  title?: string;
  description?: string;
  annotations?: ToolAnnotations;
  approval?: 'always' | 'never';
  /** Why that approval: read-only, destructive, configuration file, PARLEY_APPROVAL_<TOOL>... */
  reason?: string;
  /** Left out by the configuration's tools lists, or because its input schema does not compile. */
  hidden?: string;
}

export interface McpServerStatus {
  name: string;
  transport: McpServerConfig['transport'];
  /** What the connection uses now (an `http` server may have fallen back to `sse`). */
  connectedVia?: 'stdio' | 'http' | 'sse';
  state: ConnectionState | 'disabled';
  error?: string;
  pid?: number;
  tools: McpToolStatus[];
}

export interface McpManagerOptions {
  servers: McpServerConfig[];
  registry: ToolRegistry;
  /** Per-call timeout of servers that set none (PARLEY_TOOL_TIMEOUT). */
  defaultTimeoutMs: number;
  /** PARLEY_APPROVAL_<TOOL> overrides (lower-case tool names), shown in the status. */
  overrides?: Record<string, ApprovalOverride>;
  log: Logger;
  /** How long start() waits for the servers' first connection before going on without them. */
  startWaitMs?: number;
  connection?: Pick<ConnectionOptions, 'connectTimeoutMs' | 'retry' | 'stableMs' | 'readyWaitMs'>;
}

export class McpManager {
  readonly #o: McpManagerOptions;
  readonly #connections = new Map<string, McpConnection>();
  readonly #registered = new Map<string, string[]>();
  readonly #tools = new Map<string, McpToolStatus[]>();
  /** Tools already reported as left out (server, tool, why): a reconnection does not report them again. */
  readonly #reported = new Set<string>();

  constructor(options: McpManagerOptions) {
    this.#o = options;
    for (const server of options.servers) {
      if (server.disabled) continue;
      const connection = new McpConnection({
        server,
        log: options.log,
        onTools: (tools) => this.#sync(server, connection, tools),
        ...options.connection,
      });
      this.#connections.set(server.name, connection);
    }
  }

  /** Connects every server; waits at most startWaitMs (servers not up by then keep trying). */
  async start(): Promise<void> {
    const first = Promise.all([...this.#connections.values()].map((c) => c.start()));
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.#o.startWaitMs ?? 10_000);
    });
    await Promise.race([first, waited]);
    clearTimeout(timer);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((c) => c.stop()));
    for (const names of this.#registered.values()) for (const name of names) this.#o.registry.unregister(name);
    this.#registered.clear();
  }

  status(): McpServerStatus[] {
    return this.#o.servers.map((server) => {
      const connection = this.#connections.get(server.name);
      if (!connection) return { name: server.name, transport: server.transport, state: 'disabled', tools: [] };
      const { transport, pid, lastError } = connection;
      return {
        name: server.name,
        transport: server.transport,
        ...(transport ? { connectedVia: transport } : {}),
        state: connection.state,
        ...(lastError && connection.state !== 'connected' ? { error: lastError } : {}),
        ...(pid ? { pid } : {}),
        tools: this.#tools.get(server.name) ?? [],
      };
    });
  }

  #sync(server: McpServerConfig, connection: McpConnection, tools: Tool[]): void {
    const { registry } = this.#o;
    const { redact } = connection;
    const log = this.#o.log.child({ mcpServer: server.name });
    const visible = tools.filter((tool) => !hiddenBecause(tool.name, server.tools));
    const names = exposedNames(
      server.name,
      visible.map((tool) => tool.name),
    );
    // One validator per listing: compiled schemas of replaced tools go with it.
    const validator = new AjvJsonSchemaValidator();
    for (const name of this.#registered.get(server.name) ?? []) registry.unregister(name);
    const registered: string[] = [];
    const statuses = tools.map((tool): McpToolStatus => {
      const base = {
        mcpName: tool.name,
        ...(tool.title ? { title: redact(tool.title) } : {}),
        ...(tool.description ? { description: redact(tool.description) } : {}),
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
      };
      const hidden = hiddenBecause(tool.name, server.tools);
      if (hidden) return { ...base, hidden };
      const name = names.get(tool.name)!;
      const policy = mcpApproval(tool, server.approval);
      try {
        if (registry.get(name)) throw new Error(`another tool is already named ${name}`);
        registry.register(
          mcpTool(tool, { exposedName: name, connection, policy, timeoutMs: server.timeoutMs ?? this.#o.defaultTimeoutMs, validator }),
          { log },
        );
      } catch (error) {
        // The registry's refusals name the tool and the limit; other errors are the tool's own.
        const why = redact(errorText(error));
        const refused = error instanceof ToolRefusedError;
        const key = `${server.name}\0${tool.name}\0${why}`;
        if (!this.#reported.has(key)) {
          this.#reported.add(key);
          log.warn({ tool: tool.name, err: loggable(error, redact) }, refused ? why : `MCP tool ${name} left out: ${why}`);
        }
        return { ...base, hidden: refused ? why : `unusable: ${why}` };
      }
      registered.push(name);
      const override = this.#o.overrides?.[name.toLowerCase()];
      return override
        ? { ...base, name, approval: override, reason: `PARLEY_APPROVAL_${name.toUpperCase()}` }
        : { ...base, name, approval: policy.approval, reason: policy.reason };
    });
    this.#registered.set(server.name, registered);
    this.#tools.set(server.name, statuses);
    for (const pattern of [...Object.keys(server.approval), ...server.tools.allow]) {
      if (!tools.some((tool) => matchesPattern(pattern, tool.name)))
        log.warn({ pattern }, 'the configuration names a tool this MCP server does not offer');
    }
  }
}
