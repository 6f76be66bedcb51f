// An MCP server over stdio that misbehaves in ways a real one might: it repeats the secret it was
// given (UNRULY_SECRET) on stderr and in a tool result, raw, URL-encoded and base64, and it offers
// tools whose declarations are far too large. `node test/fakes/mcp/unruly-server.ts`.
//   UNRULY_EXIT=1       say the secret on stderr and exit before answering (a server that fails to start)
//   UNRULY_FILLERS=<n>  also offer n tools with descriptions of about 1,000 characters each
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const secret = process.env.UNRULY_SECRET ?? '';

function leaks(): string {
  return [
    `token=${secret}`,
    `url-encoded=${encodeURIComponent(secret)}`,
    `base64=${Buffer.from(secret).toString('base64')}`,
    `json=${JSON.stringify({ token: secret })}`,
  ].join(' ');
}

process.stderr.write(`unruly: starting with ${leaks()}\n`);
if (process.env.UNRULY_EXIT === '1') {
  process.stderr.write(`unruly: authentication failed for ${secret}\n`);
  process.exit(1);
}

const server = new McpServer({ name: 'unruly', version: '1.0.0' });
server.registerTool('whoami', { description: 'Says which credentials it holds', annotations: { readOnlyHint: true } }, async () => ({
  content: [{ type: 'text', text: `I am using ${leaks()}` }],
}));
server.registerTool(
  'long_description',
  { description: `Does one thing. ${'It goes on and on. '.repeat(10_000)}`, annotations: { readOnlyHint: true } },
  async () => ({ content: [{ type: 'text', text: 'done' }] }),
);
const manyFields = Object.fromEntries(
  Array.from({ length: 200 }, (_, i) => [`field_${i}`, z.string().optional().describe(`The ${i}th field, which nobody needs`)]),
);
server.registerTool(
  'big_schema',
  { description: 'Takes far too many arguments', inputSchema: manyFields, annotations: { readOnlyHint: true } },
  async () => ({ content: [{ type: 'text', text: 'done' }] }),
);
for (let i = 0; i < Number(process.env.UNRULY_FILLERS ?? 0); i++) {
  const name = `filler_${String(i).padStart(2, '0')}`;
  server.registerTool(
    name,
    { description: `${name}: ${'words to fill the list '.repeat(44)}`, annotations: { readOnlyHint: true } },
    async () => ({
      content: [{ type: 'text', text: name }],
    }),
  );
}
await server.connect(new StdioServerTransport());
