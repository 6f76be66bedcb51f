// Real turns through the harness and the fake model server, with real MCP servers built with the
// official SDK: one over stdio (a child process Parley starts), one over Streamable HTTP.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ALICE } from '../fakes/memory-adapter.ts';
import { closeAll, settled, tempDir, waitFor } from '../helpers/harness.ts';
import { promptsIn } from '../approvals/helpers.ts';
import { callsOf, createMcpHarness, httpEntry, killMcpChildren, readLog, startHttpServer, stdioEntry, stopManagers, writeConfig } from './helpers.ts';

afterEach(async () => {
  await closeAll();
  await stopManagers();
  killMcpChildren();
});

const DM = 'memory:dm-u-alice';

function lastToolResults(request: { body: { messages: { role: string; content: string | null }[] } }): string[] {
  const messages = request.body.messages;
  const results: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--) results.unshift(messages[i]!.content ?? '');
  return results;
}

describe('MCP tools in a turn', () => {
  it('the model sees both servers, reads without approval and deletes after a button approval', async () => {
    const dir = tempDir('parley-mcp-');
    const stdioLog = join(dir, 'stdio.log');
    const httpLog = join(dir, 'http.log');
    const http = await startHttpServer(httpLog);
    const config = writeConfig(`mcpServers:\n${stdioEntry('notes', stdioLog)}\n${httpEntry('tickets', `http://127.0.0.1:${http.port}/mcp`)}\n`, dir);
    const h = await createMcpHarness(config);

    h.model.enqueue(
      { toolCalls: [{ name: 'notes__read_note', arguments: { id: 'n1' } }, { name: 'tickets__read_note', arguments: { id: 'n2' } }] },
      { toolCalls: [{ name: 'tickets__delete_note', arguments: { id: 'n1' } }] },
      (request) => ({ text: `done: ${lastToolResults(request).join(' | ')}` }),
    );
    await h.adapter.say('read my notes, then delete n1 on tickets');
    const [prompt] = await promptsIn(h.adapter);

    const first = h.model.requests[0]!.body;
    const specs = new Map(first.tools!.map((t) => [t.function.name, t.function]));
    for (const server of ['notes', 'tickets']) {
      for (const tool of ['read_note', 'delete_note', 'crash', 'wait', 'add_tool']) expect(specs.has(`${server}__${tool}`)).toBe(true);
    }
    expect(specs.get('notes__read_note')).toMatchObject({
      description: 'Returns the text of one note',
      parameters: { type: 'object', properties: { id: { type: 'string', pattern: '^n\\d+$' } }, required: ['id'] },
    });
    expect(lastToolResults(h.model.requests[1]!)).toEqual(['n1: Buy milk', 'n2: Call the plumber']);

    // The destructive call waits for a person; nothing reached the server yet.
    expect(prompt!.text).toContain('run delete_note on the MCP server "tickets", which the server marks as destructive');
    expect(prompt!.text).toContain('tickets__delete_note');
    expect(callsOf(httpLog, 'delete_note')).toEqual([]);
    expect(await h.adapter.click(prompt!.id, 'Approve', ALICE)).toBe('Approved.');
    const [turn] = await settled(h.store, DM);
    expect(turn!.status).toBe('done');
    expect(h.adapter.lastBotMessage()!.text).toBe('done: deleted n1');
    expect(readLog(httpLog).filter((e) => e.effect === 'delete')).toHaveLength(1);
    expect(callsOf(stdioLog, 'read_note')).toHaveLength(1);
  });
});
