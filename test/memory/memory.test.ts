import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, createHarness, settled } from '../helpers/harness.ts';

afterEach(closeAll);

describe('session memory', () => {
  it('remember puts a fact in the <session-context> of later requests; forget removes it', async () => {
    const h = await createHarness({ env: { PARLEY_BOT_NAME: 'Ada', PARLEY_SYSTEM_PROMPT: 'You help the ACME team.' } });
    h.model.enqueue(
      { toolCalls: [{ name: 'remember', arguments: { key: 'favourite_colour', value: 'teal' } }] },
      { text: 'I will remember that.' },
    );
    await h.adapter.say('remember that my favourite colour is teal');
    await settled(h.store, 'memory:dm-u-alice');
    // The round after `remember`, in the same turn, already shows the fact (read with the lease before: none).
    expect(h.model.requests[0]!.body.messages[0]!.content).not.toContain('<session-context>');
    expect(h.model.requests[1]!.body.messages[0]!.content).toContain('- favourite_colour: teal');

    h.model.enqueue({ text: 'Teal.' });
    await h.adapter.say('what is my favourite colour?');
    await settled(h.store, 'memory:dm-u-alice');
    const system = h.model.requests.at(-1)!.body.messages[0]!.content!;
    expect(system).toMatch(/^You help the ACME team\./);
    expect(system).toContain('Your name is Ada.');
    // The date, not the time: a clock in the prompt would change every request's beginning.
    expect(system).toMatch(/Today's date: \d{4}-\d\d-\d\d \(UTC\)\.$/);
    expect(system).not.toMatch(/\d\d:\d\d/);
    expect(system).toContain('<session-context>');
    expect(system).toContain('- favourite_colour: teal');

    h.model.enqueue({ toolCalls: [{ name: 'forget', arguments: { key: 'favourite_colour' } }] }, { text: 'Forgotten.' });
    await h.adapter.say('forget my colour');
    await settled(h.store, 'memory:dm-u-alice');
    // This turn's first round showed the fact (read with the lease); the round after `forget` does not.
    expect(h.model.requests.at(-2)!.body.messages[0]!.content).toContain('- favourite_colour: teal');
    expect(h.model.requests.at(-1)!.body.messages[0]!.content).not.toContain('<session-context>');
    expect(h.model.requests.at(-1)!.body.messages.find((m) => m.role === 'tool')).toBeDefined();
    expect(h.model.requests.at(-1)!.body.messages.at(-1)!.content).toBe('Forgot favourite_colour.');

    h.model.enqueue({ text: 'I do not know.' });
    await h.adapter.say('and now?');
    await settled(h.store, 'memory:dm-u-alice');
    expect(h.model.requests.at(-1)!.body.messages[0]!.content).not.toContain('<session-context>');
  });

  it('forgetting an unknown key is an error result, and memory is per session', async () => {
    const h = await createHarness();
    h.model.enqueue({ toolCalls: [{ name: 'forget', arguments: { key: 'nothing' } }] }, { text: 'ok' });
    await h.adapter.say('forget nothing');
    await settled(h.store, 'memory:dm-u-alice');
    expect(h.model.requests[1]!.body.messages.at(-1)!.content).toBe('There is no remembered fact named nothing.');
    const session = (await h.store.sessions.getByKey('memory:dm-u-alice'))!;
    await h.store.memory.set(session.id, 'k', 'v');
    const other = await h.store.sessions.ensure({ key: 'memory:dm-u-bob', channel: 'memory', chatId: 'dm-u-bob', chatType: 'direct' });
    expect(await h.store.memory.list(other.id)).toEqual([]);
  });
});
