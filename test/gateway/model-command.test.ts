// /model: an admin sees the models and the chat's current one, switches the chat (kept in the
// database: a restarted process still uses it), and goes back with /model reset; anyone else is
// refused and nothing changes. A channel's configured model applies where the chat chose none.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ModelsInput } from '../../src/config/models.ts';
import { ALICE, BOB } from '../fakes/memory-adapter.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { closeAll, createHarness, settled } from '../helpers/harness.ts';

let first: FakeModelServer;
let second: FakeModelServer;

beforeAll(async () => {
  first = await FakeModelServer.start();
  second = await FakeModelServer.start();
});
afterAll(async () => {
  await first.close();
  await second.close();
});
afterEach(async () => {
  await closeAll();
  first.requests.length = 0;
  second.requests.length = 0;
});

const MODELS = (): ModelsInput => ({
  default: 'first',
  fallback: ['second'],
  endpoints: {
    first: { baseUrl: first.url, model: 'model-one', capabilities: { reasoning: true } },
    second: { baseUrl: second.url, model: 'model-two', capabilities: { vision: true } },
  },
});
const ADMIN = { PARLEY_ADMINS: `memory:${ALICE.id}` };
const GROUP = 'group-1';

describe('/model', () => {
  it('shows an admin the models and the current one, switches the chat, and goes back with reset', async () => {
    const h = await createHarness({ noModel: true, models: MODELS(), env: ADMIN });
    await h.adapter.say('/model', { chatType: 'group', from: ALICE });
    const overview = h.adapter.lastBotMessage(GROUP)!.text;
    expect(overview).toContain('This chat uses **first** (the default model).');
    expect(overview).toContain('If it fails before answering: second.');
    expect(overview).toContain('- first ✓: model-one (tools, reasoning)');
    expect(overview).toContain('- second: model-two (tools, vision)');

    await h.adapter.say('/model nonesuch', { chatType: 'group', from: ALICE });
    expect(h.adapter.lastBotMessage(GROUP)!.text).toBe('There is no model named "nonesuch". Configured: first, second.');
    expect(await h.store.chatModels.get('memory', GROUP)).toBeUndefined();

    await h.adapter.say('/model second', { chatType: 'group', from: ALICE });
    expect(h.adapter.lastBotMessage(GROUP)!.text).toBe('This chat now uses **second**.');
    expect(await h.store.chatModels.get('memory', GROUP)).toMatchObject({ model: 'second', setBy: `memory:${ALICE.id}` });

    second.enqueue({ text: 'Two here.' });
    await h.adapter.say('hi', { chatType: 'group', from: BOB, mention: true });
    await settled(h.store, `memory:${GROUP}`);
    expect(h.adapter.lastBotMessage(GROUP)!.text).toBe('Two here.');
    expect(first.requests).toHaveLength(0);
    // Another chat still uses the default.
    first.enqueue({ text: 'One here.' });
    await h.adapter.say('hi', { from: BOB });
    await settled(h.store, `memory:dm-${BOB.id}`);
    expect(h.adapter.lastBotMessage(`dm-${BOB.id}`)!.text).toBe('One here.');

    await h.adapter.say('/model reset', { chatType: 'group', from: ALICE });
    expect(h.adapter.lastBotMessage(GROUP)!.text).toBe('This chat now uses **first** again (no model chosen here).');
    expect(await h.store.chatModels.get('memory', GROUP)).toBeUndefined();
  });

  it('keeps the choice across a restart of the process', async () => {
    const h = await createHarness({ noModel: true, models: MODELS(), env: ADMIN });
    await h.adapter.say('/model second', { from: ALICE });
    await h.stop();
    const again = await createHarness({ noModel: true, models: MODELS(), env: ADMIN, dbFile: h.dbFile });
    second.enqueue({ text: 'Still two.' });
    await again.adapter.say('hello', { from: ALICE });
    await settled(again.store, `memory:dm-${ALICE.id}`);
    expect(again.adapter.lastBotMessage(`dm-${ALICE.id}`)!.text).toBe('Still two.');
    expect(first.requests).toHaveLength(0);
  });

  it('refuses anyone but an admin, and changes nothing', async () => {
    const h = await createHarness({ noModel: true, models: MODELS(), env: ADMIN });
    await h.adapter.say('/model second', { chatType: 'group', from: BOB });
    expect(h.adapter.lastBotMessage(GROUP)!.text).toBe('Only an admin can see or change the model here.');
    await h.adapter.say('/model', { chatType: 'group', from: BOB });
    expect(h.adapter.lastBotMessage(GROUP)!.text).toBe('Only an admin can see or change the model here.');
    expect(await h.store.chatModels.get('memory', GROUP)).toBeUndefined();
  });

  it("uses the channel's model where the chat chose none, and says so", async () => {
    const h = await createHarness({ noModel: true, models: { ...MODELS(), channels: { memory: 'second' } }, env: ADMIN });
    await h.adapter.say('/model', { from: ALICE });
    expect(h.adapter.lastBotMessage(`dm-${ALICE.id}`)!.text).toContain('This chat uses **second** (the model for this channel).');
    second.enqueue({ text: 'Channel model.' });
    await h.adapter.say('hello', { from: ALICE });
    await settled(h.store, `memory:dm-${ALICE.id}`);
    expect(h.adapter.lastBotMessage(`dm-${ALICE.id}`)!.text).toBe('Channel model.');
    expect(first.requests).toHaveLength(0);
  });
});
