// The knowledge base in chat turns, on the real core with the fake model: search_knowledge and a
// cited answer, the automatic context in the request the model receives, and write_knowledge_page
// suspending for approval until a person approves it.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { importPages } from '../../src/knowledge/importer.ts';
import { ALICE } from '../fakes/memory-adapter.ts';
import { FakeModelServer, type RecordedRequest } from '../fakes/model-server.ts';
import { closeAll, createHarness, settled, tempDir, waitFor, type Harness } from '../helpers/harness.ts';
import { CORPUS_DIR, cliFor } from './helpers.ts';

const DM = 'memory:dm-u-alice';
// Every test has its own person, so each starts a fresh conversation in the shared database.
const person = (name: string) => ({ id: `u-${name.toLowerCase()}`, name });
const dm = (user: { id: string }) => `memory:dm-${user.id}`;
const QUESTION = 'How do I send a message with buttons under it?';

// One database with the corpus for the whole file; each test starts its own app on it.
let corpusDb: string;
let model: FakeModelServer;

let corpusDir: string;

beforeAll(async () => {
  model = await FakeModelServer.start();
  corpusDir = tempDir('parley-chat-knowledge-');
  corpusDb = join(corpusDir, 'parley.db');
  const seed = await createHarness({ model, dbFile: corpusDb, start: false, noModel: true });
  await importPages(seed.app.knowledge, CORPUS_DIR);
  await seed.stop();
});
afterEach(async () => {
  await closeAll();
  model.requests.length = 0;
});
afterAll(async () => {
  await model.close();
  rmSync(corpusDir, { recursive: true, force: true });
});

const systemPrompt = (request: RecordedRequest) => request.body.messages[0]!.content ?? '';
/** The turn's message as the model sees it: the automatic knowledge context goes with it. */
const userMessage = (request: RecordedRequest) => request.body.messages.findLast((m) => m.role === 'user')?.content ?? '';
const toolResult = (request: RecordedRequest) => request.body.messages.findLast((m) => m.role === 'tool')?.content ?? '';

async function app(env: Record<string, string> = {}): Promise<Harness> {
  return createHarness({ model, dbFile: corpusDb, env });
}

describe('knowledge in a chat turn', () => {
  it('search_knowledge returns the right page and the answer cites its slug', async () => {
    const h = await app({ PARLEY_KNOWLEDGE_AUTO_CONTEXT: 'false' });
    h.model.enqueue(
      { toolCalls: [{ name: 'search_knowledge', arguments: { query: 'send a message with buttons under it', limit: 3 } }] },
      (request) => {
        const { results } = JSON.parse(toolResult(request)) as { results: { slug: string; section: string }[] };
        return { text: `Use an inline keyboard; see [${results[0]!.slug}] (${results[0]!.section}).` };
      },
    );
    const bea = person('Bea');
    await h.adapter.say(QUESTION, { from: bea });
    const [turn] = await settled(h.store, dm(bea));
    expect(turn!.status).toBe('done');

    const result = JSON.parse(toolResult(h.model.requests[1]!)) as {
      results: { slug: string; title: string; section: string; snippet: string; score: number }[];
      note: string;
    };
    expect(result.results[0]).toMatchObject({ slug: 'en/plugins/keyboard', title: 'Inline and Custom Keyboards (built-in)' });
    expect(Object.keys(result.results[0]!).sort()).toEqual(['score', 'section', 'slug', 'snippet', 'title']);
    expect(result.note).toMatch(/Cite the slug/);
    expect(h.adapter.lastBotMessage()!.text).toContain('[en/plugins/keyboard]');
    // With the automatic context off, nothing from the knowledge base is in the prompt.
    expect(systemPrompt(h.model.requests[0]!)).not.toContain('<knowledge>');
    expect(userMessage(h.model.requests[0]!)).toBe(QUESTION);
  });

  it('read_knowledge_page returns a page or one section, and names an unknown slug', async () => {
    const h = await app({ PARLEY_KNOWLEDGE_AUTO_CONTEXT: 'false' });
    h.model.enqueue(
      {
        toolCalls: [
          { name: 'read_knowledge_page', arguments: { slug: 'en/plugins/keyboard', section: 'Sending an Inline Keyboard' } },
          { name: 'read_knowledge_page', arguments: { slug: 'en/nope' } },
        ],
      },
      { text: 'Done [en/plugins/keyboard].' },
    );
    const cem = person('Cem');
    await h.adapter.say('read it', { from: cem });
    await settled(h.store, dm(cem));
    const [section, missing] = h.model.requests[1]!.body.messages.filter((m) => m.role === 'tool');
    expect(section!.content).toMatch(/^# Inline and Custom Keyboards \(built-in\)\nslug: en\/plugins\/keyboard · revision 1/);
    expect(section!.content).toContain('section: Inline Keyboards › Sending an Inline Keyboard');
    expect(section!.content).not.toContain('## Custom Keyboards');
    expect(missing!.content).toBe('There is no knowledge page with slug "en/nope". Use search_knowledge to find one.');
  });

  it('with automatic context on, the best matching section goes with the message in the request the model receives', async () => {
    const h = await app();
    h.model.enqueue({ text: 'Use an inline keyboard [en/plugins/keyboard].' });
    const dan = person('Dan');
    await h.adapter.say(QUESTION, { from: dan });
    await settled(h.store, dm(dan));
    expect(systemPrompt(h.model.requests[0]!)).not.toContain('<knowledge>');
    const prompt = userMessage(h.model.requests[0]!);
    expect(prompt.startsWith(`${QUESTION}\n\n<knowledge>`)).toBe(true);
    expect(prompt).toMatch(/cite the slug|Cite the slug/);
    const block = prompt.slice(prompt.indexOf('<knowledge>'), prompt.indexOf('</knowledge>'));
    const heading = /### \[en\/plugins\/keyboard\] Inline and Custom Keyboards \(built-in\) › (.+)\n/.exec(block);
    expect(heading, block).not.toBeNull();
    const keyboard = (await h.store.knowledge.get('en/plugins/keyboard'))!;
    const body = block
      .slice(heading!.index + heading![0].length)
      .split('\n### ')[0]!
      .replace(/\n…\s*$/, '')
      .trim();
    expect(body.length).toBeGreaterThan(100);
    expect(keyboard.content).toContain(body);
  });

  it('gives a short English question its page as it gives a Chinese one (the default threshold does not depend on the length or the language)', async () => {
    const h = await app();
    h.model.enqueue({ text: 'See [en/advanced/proxy].' }, { text: '见 [zh/advanced/proxy]。' });
    const fay = person('Fay');
    await h.adapter.say('proxy', { from: fay });
    await settled(h.store, dm(fay));
    await h.adapter.say('代理', { from: fay });
    await settled(h.store, dm(fay));
    const [english, chinese] = h.model.requests.map(userMessage);
    expect(english).toMatch(/^proxy\n\n<knowledge>[\s\S]*### \[en\/advanced\/proxy\]/);
    expect(chinese).toMatch(/^代理\n\n<knowledge>[\s\S]*### \[zh\/advanced\/proxy\]/);
  });

  it('keeps the automatic context out of off-topic messages', async () => {
    const h = await app();
    h.model.enqueue({ text: 'Sunny, probably.' });
    const eve = person('Eve');
    await h.adapter.say('what is the weather like in Berlin tomorrow?', { from: eve });
    await settled(h.store, dm(eve));
    expect(systemPrompt(h.model.requests[0]!)).not.toContain('<knowledge>');
    expect(userMessage(h.model.requests[0]!)).toBe('what is the weather like in Berlin tomorrow?');
  });
});

describe('write_knowledge_page', () => {
  it('suspends the turn for approval; once approved the page exists with a revision that history shows', async () => {
    const h = await app({ PARLEY_KNOWLEDGE_AUTO_CONTEXT: 'false' });
    const page = {
      slug: 'faq/refunds',
      title: 'Refunds',
      summary: 'How refunds work.',
      content: 'Refunds take five working days.',
      tags: ['billing'],
    };
    h.model.enqueue({ toolCalls: [{ name: 'write_knowledge_page', arguments: page }] }, (request) => ({
      text: `Saved: ${toolResult(request)} See [faq/refunds].`,
    }));
    await h.adapter.say('please write down our refund policy', { from: ALICE });

    const prompt = await waitFor(() => h.adapter.prompts()[0], 'the approval prompt');
    expect(prompt.text).toContain('create or update the knowledge page "faq/refunds" (Refunds)');
    expect((await h.store.turns.active((await h.store.sessions.getByKey(DM))!.id))!.status).toBe('awaiting_approval');
    expect(await h.store.knowledge.get('faq/refunds')).toBeUndefined();

    await h.adapter.click(prompt.id, 'Approve', ALICE);
    await h.app.approvals.settled();
    const [turn] = await settled(h.store, DM);
    expect(turn!.status).toBe('done');
    expect(h.adapter.lastBotMessage()!.text).toBe('Saved: Created page faq/refunds (revision 1). See [faq/refunds].');

    const saved = (await h.store.knowledge.get('faq/refunds'))!;
    expect(saved).toMatchObject({ ...page, revision: 1, source: 'bot' });
    expect((await h.app.knowledge.search('refund policy')).hits[0]!.slug).toBe('faq/refunds');

    const history = await cliFor(h.dbFile, process.cwd())(['knowledge', 'history', 'faq/refunds']);
    expect(history.code).toBe(0);
    expect(history.out).toMatch(/1 \*.*bot.*Alice \(memory:u-alice\).*Refunds/);
  });
});
