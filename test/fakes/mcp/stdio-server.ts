// The notes MCP server over stdio, run as a child process: `node test/fakes/mcp/stdio-server.ts`.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createNotesServer, logRequests, record } from './notes-server.ts';

const server = createNotesServer(process.env.MCP_SERVER_NAME ?? 'notes');
const transport = new StdioServerTransport();
await server.connect(transport);
logRequests(transport);
record({ started: 'stdio', env: Object.keys(process.env).sort() });
process.stderr.write(`notes stdio server ${process.pid} ready\n`);
