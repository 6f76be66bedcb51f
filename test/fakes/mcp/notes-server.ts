// A small MCP server built with the official SDK, the same one Parley's client uses: a notes
// store with a read-only tool, a destructive one, and tools that misbehave on purpose (crash the
// process, never answer, fail, change the tool list). Every request that reaches the server is
// appended to MCP_LOG_FILE (one JSON line), so a test can prove a call was or was not sent.
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';

const notes = new Map<string, string>([
  ['n1', 'Buy milk'],
  ['n2', 'Call the plumber'],
]);
const servers = new Set<McpServer>();
const extraTools: string[] = [];

export function record(entry: Record<string, unknown>): void {
  const file = process.env.MCP_LOG_FILE;
  if (file) appendFileSync(file, `${JSON.stringify({ pid: process.pid, ...entry })}\n`);
}

function addEchoTool(server: McpServer, name: string): void {
  server.registerTool(name, { description: `Says hello from ${name}`, inputSchema: {}, annotations: { readOnlyHint: true } }, async () => ({
    content: [{ type: 'text', text: `hello from ${name}` }],
  }));
}

export function createNotesServer(name = 'notes'): McpServer {
  const server = new McpServer({ name, version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  servers.add(server);
  server.registerTool(
    'read_note',
    {
      title: 'Read a note',
      description: 'Returns the text of one note',
      inputSchema: { id: z.string().regex(/^n\d+$/) },
      annotations: { readOnlyHint: true },
    },
    async ({ id }) => ({ content: [{ type: 'text', text: notes.has(id) ? `${id}: ${notes.get(id)}` : `no note ${id}` }] }),
  );
  server.registerTool(
    'delete_note',
    { description: 'Deletes a note for good', inputSchema: { id: z.string() }, annotations: { destructiveHint: true } },
    async ({ id }) => {
      record({ effect: 'delete', id });
      const existed = notes.delete(id);
      return { content: [{ type: 'text', text: existed ? `deleted ${id}` : `no note ${id}` }] };
    },
  );
  server.registerTool('pid', { description: 'The server process id', annotations: { readOnlyHint: true } }, async () => ({
    content: [{ type: 'text', text: String(process.pid) }],
  }));
  server.registerTool('crash', { description: 'Kills the server process mid-call', annotations: { readOnlyHint: true } }, async () => {
    record({ effect: 'crash' });
    process.kill(process.pid, 'SIGKILL');
    return new Promise(() => {});
  });
  server.registerTool('wait', { description: 'Never answers until cancelled', annotations: { readOnlyHint: true } }, async (extra) => {
    record({ effect: 'wait' });
    await new Promise<void>((resolve) => extra.signal.addEventListener('abort', () => resolve(), { once: true }));
    record({ effect: 'cancelled' });
    return { content: [{ type: 'text', text: 'cancelled' }] };
  });
  server.registerTool('fail', { description: 'Always fails', annotations: { readOnlyHint: true } }, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'disk full' }],
  }));
  server.registerTool(
    'picture',
    {
      description: 'A picture with its metadata',
      outputSchema: { width: z.number(), height: z.number() },
      annotations: { readOnlyHint: true },
    },
    async () => ({
      content: [
        { type: 'text', text: 'A red dot.' },
        { type: 'image', data: Buffer.from('not really a png').toString('base64'), mimeType: 'image/png' },
      ],
      structuredContent: { width: 1, height: 1 },
    }),
  );
  server.registerTool(
    'add_tool',
    { description: 'Adds a tool to this server', inputSchema: { name: z.string() }, annotations: { readOnlyHint: true } },
    async ({ name: toolName }) => {
      extraTools.push(toolName);
      for (const other of servers) addEchoTool(other, toolName);
      return { content: [{ type: 'text', text: `added ${toolName}` }] };
    },
  );
  for (const toolName of extraTools) addEchoTool(server, toolName);
  return server;
}

/** Logs every JSON-RPC request that reaches the server, before the SDK handles it. */
export function logRequests(transport: Transport): void {
  const original = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ('method' in message) {
      const params = (message.params ?? {}) as { name?: string; arguments?: unknown };
      record({ rpc: message.method, ...(message.method === 'tools/call' ? { tool: params.name, arguments: params.arguments } : {}) });
    }
    original?.(message, extra);
  };
}
