// Real turns through the harness and the fake model server, with real MCP servers built with the
// official SDK: one over stdio (a child process Parley starts), one over Streamable HTTP.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ALICE, MemoryAdapter } from '../fakes/memory-adapter.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { closeAll, settled, tempDir, waitFor } from '../helpers/harness.ts';
import { promptsIn } from '../approvals/helpers.ts';
import {
  callsOf,
  createMcpHarness,
  httpEntry,
  killMcpChildren,
  readLog,
  startHttpServer,
  stdioEntry,
  stopManagers,
  writeConfig,
} from './helpers.ts';

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
    const config = writeConfig(
      `mcpServers:\n${stdioEntry('notes', stdioLog)}\n${httpEntry('tickets', `http://127.0.0.1:${http.port}/mcp`)}\n`,
      dir,
    );
    const h = await createMcpHarness(config);

    h.model.enqueue(
      {
        toolCalls: [
          { name: 'notes__read_note', arguments: { id: 'n1' } },
          { name: 'tickets__read_note', arguments: { id: 'n2' } },
        ],
      },
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

  it('a stdio server that dies mid-call gives an error result and is started again', async () => {
    const dir = tempDir('parley-mcp-');
    const log = join(dir, 'stdio.log');
    const h = await createMcpHarness(writeConfig(`mcpServers:\n${stdioEntry('notes', log)}\n`, dir));
    h.model.enqueue(
      { toolCalls: [{ name: 'notes__pid', arguments: {} }] },
      { toolCalls: [{ name: 'notes__crash', arguments: {} }] },
      { toolCalls: [{ name: 'notes__pid', arguments: {} }] },
      { text: 'ok' },
    );
    await h.adapter.say('crash it');
    const [turn] = await settled(h.store, DM);
    expect(turn!.status).toBe('done');
    const [before] = lastToolResults(h.model.requests[1]!);
    const [crashed] = lastToolResults(h.model.requests[2]!);
    const [after] = lastToolResults(h.model.requests[3]!);
    expect(crashed).toBe(
      'Error: the MCP server "notes" went away while running crash; it is being restarted. It is not known whether the call took effect.',
    );
    expect(after).toMatch(/^\d+$/);
    expect(after).not.toBe(before);
    expect(
      readLog(log)
        .filter((e) => e.started)
        .map((e) => String(e.pid)),
    ).toEqual([before, after]);
    expect(h.mcp.status()[0]).toMatchObject({ name: 'notes', state: 'connected', pid: Number(after) });
  });

  it('an HTTP server that dies mid-call gives an error result; once it is back, calls work again', async () => {
    const dir = tempDir('parley-mcp-');
    const log = join(dir, 'http.log');
    const first = await startHttpServer(log);
    const h = await createMcpHarness(writeConfig(`mcpServers:\n${httpEntry('tickets', `http://127.0.0.1:${first.port}/mcp`)}\n`, dir));
    h.model.enqueue({ toolCalls: [{ name: 'tickets__crash', arguments: {} }] }, (request) => ({ text: lastToolResults(request)[0]! }));
    await h.adapter.say('crash it');
    await settled(h.store, DM);
    expect(h.adapter.lastBotMessage()!.text).toMatch(
      /^Error: .*MCP server "tickets".* while running crash.*It is not known whether the call took effect\.$/,
    );

    // A new server process on the same port: it does not know the old session.
    const second = await startHttpServer(log, ['--port', String(first.port)]);
    h.model.enqueue({ toolCalls: [{ name: 'tickets__pid', arguments: {} }] }, (request) => ({ text: lastToolResults(request)[0]! }));
    await h.adapter.say('who are you now?');
    await waitFor(async () => (await h.store.turns.list({})).filter((t) => t.status === 'done').length === 2, 'the second turn');
    expect(h.adapter.lastBotMessage()!.text).toBe(String(second.child.pid));
  });

  it('an HTTP server restarted between calls: the call goes out again on a new session, once', async () => {
    const dir = tempDir('parley-mcp-');
    const log = join(dir, 'http.log');
    // No standalone event stream: Parley cannot see the restart until its next request (a 404).
    const first = await startHttpServer(log, ['--no-get']);
    const h = await createMcpHarness(writeConfig(`mcpServers:\n${httpEntry('tickets', `http://127.0.0.1:${first.port}/mcp`)}\n`, dir));
    await first.kill9();
    const second = await startHttpServer(log, ['--no-get', '--port', String(first.port)]);
    h.model.enqueue({ toolCalls: [{ name: 'tickets__delete_note', arguments: { id: 'n1' } }] }, (request) => ({
      text: lastToolResults(request)[0]!,
    }));
    await h.adapter.say('delete n1');
    const [prompt] = await promptsIn(h.adapter);
    await h.adapter.click(prompt!.id, 'Approve', ALICE);
    await settled(h.store, DM);
    expect(h.adapter.lastBotMessage()!.text).toBe('deleted n1');
    const secondLog = readLog(log).filter((e) => e.pid === second.child.pid);
    expect(secondLog.map((e) => e.rpc ?? e.effect ?? 'header')).toEqual([
      'header',
      'initialize',
      'notifications/initialized',
      'tools/list',
      'tools/call',
      'delete',
    ]);
  });

  it('an approval clicked after a restart runs the call on the newly started server', async () => {
    const dir = tempDir('parley-mcp-');
    const log = join(dir, 'stdio.log');
    const config = writeConfig(`mcpServers:\n${stdioEntry('notes', log)}\n`, dir);
    const model = await FakeModelServer.start();
    const channel = new MemoryAdapter();
    const first = await createMcpHarness(config, { model, adapters: [channel] });
    model.enqueue({ toolCalls: [{ name: 'notes__delete_note', arguments: { id: 'n2' } }] });
    await channel.say('delete n2');
    const [prompt] = await promptsIn(channel);
    await first.stop();
    await first.mcp.stop();

    const second = await createMcpHarness(config, { model, adapters: [channel], dbFile: first.dbFile });
    model.enqueue((request) => ({ text: lastToolResults(request)[0]! }));
    expect(await channel.click(prompt!.id, 'Approve', ALICE)).toBe('Approved.');
    await settled(second.store, DM);
    expect(channel.lastBotMessage()!.text).toBe('deleted n2');
    const [before, after] = readLog(log)
      .filter((e) => e.started)
      .map((e) => e.pid);
    expect(
      readLog(log)
        .filter((e) => e.effect === 'delete')
        .map((e) => e.pid),
    ).toEqual([after]);
    expect(after).not.toBe(before);
    await model.close();
  });

  it('invalid arguments are refused before the call and before any approval prompt', async () => {
    const dir = tempDir('parley-mcp-');
    const log = join(dir, 'stdio.log');
    const h = await createMcpHarness(writeConfig(`mcpServers:\n${stdioEntry('notes', log)}\n`, dir));
    h.model.enqueue(
      {
        toolCalls: [
          { name: 'notes__read_note', arguments: { id: 5 } },
          { name: 'notes__read_note', arguments: { id: 'x1' } },
          { name: 'notes__delete_note', arguments: {} },
          { name: 'notes__delete_note', arguments: '{"id": "n1"' },
        ],
      },
      (request) => ({ text: lastToolResults(request).join('\n') }),
    );
    await h.adapter.say('go');
    const [turn] = await settled(h.store, DM);
    expect(turn!.status).toBe('done');
    const results = lastToolResults(h.model.requests[1]!);
    expect(results[0]).toMatch(/^Invalid arguments for notes__read_note: .*id must be string/);
    expect(results[1]).toMatch(/^Invalid arguments for notes__read_note: .*id must match pattern/);
    expect(results[2]).toMatch(/^Invalid arguments for notes__delete_note: .*must have required property 'id'/);
    expect(results[3]).toMatch(/^Invalid arguments for notes__delete_note: not valid JSON/);
    expect(h.adapter.prompts()).toEqual([]);
    expect(await h.store.approvals.list()).toEqual([]);
    expect(readLog(log).filter((e) => e.rpc === 'tools/call')).toEqual([]);
  });

  it('a tool list changed by a call is what the model sees in its next round', async () => {
    const dir = tempDir('parley-mcp-');
    const h = await createMcpHarness(writeConfig(`mcpServers:\n${stdioEntry('notes', join(dir, 'stdio.log'))}\n`, dir));
    h.model.enqueue(
      { toolCalls: [{ name: 'notes__add_tool', arguments: { name: 'weather' } }] },
      (request) =>
        request.body.tools!.some((t) => t.function.name === 'notes__weather')
          ? { toolCalls: [{ name: 'notes__weather', arguments: {} }] }
          : { text: 'the new tool is missing' },
      (request) => ({ text: lastToolResults(request)[0]! }),
    );
    await h.adapter.say('add a weather tool and use it');
    await settled(h.store, DM);
    expect(h.model.requests[0]!.body.tools!.some((t) => t.function.name === 'notes__weather')).toBe(false);
    expect(h.adapter.lastBotMessage()!.text).toBe('hello from weather');
    expect(h.mcp.status()[0]!.tools.find((t) => t.mcpName === 'weather')).toMatchObject({
      name: 'notes__weather',
      approval: 'never',
      reason: 'read-only',
    });
  });

  it('/stop cancels a running MCP call on the server', async () => {
    const dir = tempDir('parley-mcp-');
    const log = join(dir, 'stdio.log');
    const h = await createMcpHarness(writeConfig(`mcpServers:\n${stdioEntry('notes', log)}\n`, dir));
    h.model.enqueue({ toolCalls: [{ name: 'notes__wait', arguments: {} }] });
    await h.adapter.say('wait');
    await waitFor(() => readLog(log).some((e) => e.effect === 'wait'), 'the call to reach the server');
    await h.adapter.say('/stop');
    const [turn] = await settled(h.store, DM);
    expect(turn!.status).toBe('cancelled');
    await waitFor(() => readLog(log).some((e) => e.effect === 'cancelled'), 'the server to see the cancellation');
    expect(h.model.requests).toHaveLength(1);
  });

  it('a call that outlasts the server timeout is an error result and is cancelled on the server', async () => {
    const dir = tempDir('parley-mcp-');
    const log = join(dir, 'stdio.log');
    const h = await createMcpHarness(writeConfig(`mcpServers:\n${stdioEntry('notes', log, '    timeout: 1s')}\n`, dir));
    h.model.enqueue({ toolCalls: [{ name: 'notes__wait', arguments: {} }] }, (request) => ({ text: lastToolResults(request)[0]! }));
    await h.adapter.say('wait');
    await settled(h.store, DM);
    expect(h.adapter.lastBotMessage()!.text).toBe('Error: notes__wait timed out after 1000 ms.');
    await waitFor(() => readLog(log).some((e) => e.effect === 'cancelled'), 'the server to see the cancellation');
  });

  it('per-tool approval from the config file and PARLEY_APPROVAL_<TOOL> override the annotations', async () => {
    const dir = tempDir('parley-mcp-');
    const log = join(dir, 'stdio.log');
    const config = writeConfig(`mcpServers:\n${stdioEntry('notes', log, '    approval: { read_*: always }')}\n`, dir);
    const h = await createMcpHarness(config, { env: { PARLEY_APPROVAL_NOTES__DELETE_NOTE: 'never' } });
    h.model.enqueue({
      toolCalls: [
        { name: 'notes__delete_note', arguments: { id: 'n2' } },
        { name: 'notes__read_note', arguments: { id: 'n1' } },
      ],
    });
    await h.adapter.say('go');
    const [prompt] = await promptsIn(h.adapter);
    expect(prompt!.text).toContain('notes__read_note');
    expect(h.adapter.prompts()).toHaveLength(1);
    expect(readLog(log).filter((e) => e.effect === 'delete')).toHaveLength(1);
    expect(callsOf(log, 'read_note')).toEqual([]);
    const tools = h.mcp.status()[0]!.tools;
    expect(tools.find((t) => t.mcpName === 'read_note')).toMatchObject({ approval: 'always', reason: 'configuration file' });
    expect(tools.find((t) => t.mcpName === 'delete_note')).toMatchObject({
      approval: 'never',
      reason: 'PARLEY_APPROVAL_NOTES__DELETE_NOTE',
    });
  });

  it('a list change the server announces on its own (HTTP) is picked up', async () => {
    const dir = tempDir('parley-mcp-');
    const http = await startHttpServer(join(dir, 'http.log'));
    const url = `http://127.0.0.1:${http.port}/mcp`;
    const h = await createMcpHarness(writeConfig(`mcpServers:\n${httpEntry('tickets', url)}\n`, dir));
    expect(h.app.tools.get('tickets__calendar')).toBeUndefined();
    // Someone else's session adds a tool; the server tells every session.
    const other = new Client({ name: 'someone-else', version: '1.0.0' });
    await other.connect(new StreamableHTTPClientTransport(new URL(url)));
    await other.callTool({ name: 'add_tool', arguments: { name: 'calendar' } });
    await other.close();
    await waitFor(() => h.app.tools.get('tickets__calendar'), 'the new tool in the registry');
    h.model.enqueue({ toolCalls: [{ name: 'tickets__calendar', arguments: {} }] }, (request) => ({ text: lastToolResults(request)[0]! }));
    await h.adapter.say('use the calendar');
    await settled(h.store, DM);
    expect(h.adapter.lastBotMessage()!.text).toBe('hello from calendar');
  });

  it('an old HTTP+SSE server is reached through the fallback', async () => {
    const dir = tempDir('parley-mcp-');
    const log = join(dir, 'sse.log');
    const old = await startHttpServer(log, ['--sse']);
    const h = await createMcpHarness(writeConfig(`mcpServers:\n${httpEntry('old', `http://127.0.0.1:${old.port}/sse`)}\n`, dir));
    h.model.enqueue(
      {
        toolCalls: [
          { name: 'old__read_note', arguments: { id: 'n2' } },
          { name: 'old__picture', arguments: {} },
          { name: 'old__fail', arguments: {} },
        ],
      },
      (request) => ({ text: lastToolResults(request).join('\n---\n') }),
    );
    await h.adapter.say('read n2');
    await settled(h.store, DM);
    expect(h.adapter.lastBotMessage()!.text).toBe(
      [
        'n2: Call the plumber',
        'A red dot.\n[image: image/png, 16 bytes; not shown]\nStructured content:\n{\n  "width": 1,\n  "height": 1\n}',
        'disk full',
      ].join('\n---\n'),
    );
    const session = (await h.store.sessions.getByKey(DM))!;
    const results = (await h.store.messages.history(session.id, 0)).filter((m) => m.role === 'tool');
    expect(results.map((m) => m.isError)).toEqual([false, false, true]);
    expect(h.mcp.status()[0]).toMatchObject({ transport: 'http', connectedVia: 'sse', state: 'connected' });
    expect(callsOf(log, 'read_note')).toHaveLength(1);
  });
});
