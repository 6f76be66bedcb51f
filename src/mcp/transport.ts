// Opens one MCP client session on a configured server: a child process over stdio, or Streamable
// HTTP falling back to the old HTTP+SSE transport when the server answers the first POST with a
// 4xx (what the MCP spec tells clients to do for servers older than 2025-03-26).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { McpServerConfig } from '../config-file/schema.ts';

export type TransportKind = 'stdio' | 'http' | 'sse';

export interface OpenSession {
  client: Client;
  transport: Transport;
  kind: TransportKind;
}

interface OpenOptions {
  timeoutMs: number;
  /** Called for each line the server writes to stderr (stdio only). */
  onStderr?: (line: string) => void;
  /** Registers handlers on the client before it connects (notifications may come at once). */
  prepare?: (client: Client) => void;
}

const ajv = new AjvJsonSchemaValidator();

/**
 * The client validates structured results against a tool's output schema. A server's broken
 * output schema must not make its whole tool list unusable, so one that does not compile
 * accepts anything (input schemas are checked separately, and strictly).
 */
const lenientValidator: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType) {
    try {
      return ajv.getValidator<T>(schema);
    } catch {
      return (input: unknown) => ({ valid: true as const, data: input as T, errorMessage: undefined });
    }
  },
};

function newClient(options: OpenOptions): Client {
  const client = new Client({ name: 'parley', version: '0.1.0' }, { capabilities: {}, jsonSchemaValidator: lenientValidator });
  options.prepare?.(client);
  return client;
}

function stdioTransport(server: Extract<McpServerConfig, { transport: 'stdio' }>, options: OpenOptions): StdioClientTransport {
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: server.env,
    ...(server.cwd ? { cwd: server.cwd } : {}),
    stderr: 'pipe',
  });
  let pending = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString('utf8')).split('\n');
    pending = lines.pop() ?? '';
    if (pending.length > 4_000) pending = pending.slice(0, 4_000);
    for (const line of lines) if (line.trim()) options.onStderr?.(line.trimEnd());
  });
  return transport;
}

async function connect(client: Client, transport: Transport, timeoutMs: number): Promise<void> {
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
}

export async function openSession(server: McpServerConfig, options: OpenOptions): Promise<OpenSession> {
  if (server.transport === 'stdio') {
    const client = newClient(options);
    const transport = stdioTransport(server, options);
    await connect(client, transport, options.timeoutMs);
    return { client, transport, kind: 'stdio' };
  }
  const url = new URL(server.url);
  const requestInit = { headers: server.headers };
  if (server.transport === 'http') {
    const client = newClient(options);
    const transport = new StreamableHTTPClientTransport(url, { requestInit });
    try {
      await connect(client, transport, options.timeoutMs);
      return { client, transport, kind: 'http' };
    } catch (error) {
      // Not for 401/403: credentials are wrong for either transport, and that error says so.
      const status = error instanceof StreamableHTTPError ? error.code : undefined;
      if (status !== 400 && status !== 404 && status !== 405) throw error;
    }
  }
  const client = newClient(options);
  const transport = new SSEClientTransport(url, { requestInit });
  await connect(client, transport, options.timeoutMs);
  return { client, transport, kind: 'sse' };
}

/** The child process of a stdio session, while it runs. */
export function processId(session: OpenSession): number | undefined {
  return session.transport instanceof StdioClientTransport ? (session.transport.pid ?? undefined) : undefined;
}
