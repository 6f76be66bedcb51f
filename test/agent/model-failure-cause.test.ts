// When a turn fails on the model, an admin who asked sees the cause in one line ("refused the API
// key (401)", "unknown model"); anyone else sees the generic message. The model's health follows
// what the turns' requests found: the failure's cause, then "answering" once a request succeeds.
import { afterEach, describe, expect, it } from 'vitest';
import { ALICE, BOB } from '../fakes/memory-adapter.ts';
import { closeAll, createHarness, settled } from '../helpers/harness.ts';

afterEach(closeAll);

const GENERIC_401 = 'I cannot reach my language model: it refused my credentials. An admin needs to check the API key.';

describe('a turn that fails on the model', () => {
  it('tells an admin the cause in one line, and others only the generic message', async () => {
    const h = await createHarness({ env: { PARLEY_ADMINS: `memory:${ALICE.id}` } });
    const refusal = { status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } };
    h.model.enqueue(refusal, refusal);

    await h.adapter.say('hello', { from: ALICE });
    await settled(h.store, `memory:dm-${ALICE.id}`);
    const admin = h.adapter.lastBotMessage(`dm-${ALICE.id}`)!.text;
    expect(admin.startsWith(GENERIC_401)).toBe(true);
    const note = admin.slice(GENERIC_401.length).trim();
    expect(note).toMatch(/^\(For admins\) model fake-model at .*: refused the API key \(401\)$/);
    expect(h.app.modelHealth.state).toEqual({ kind: 'unauthorised', status: 401 });

    await h.adapter.say('hello', { from: BOB });
    await settled(h.store, `memory:dm-${BOB.id}`);
    expect(h.adapter.lastBotMessage(`dm-${BOB.id}`)!.text).toBe(GENERIC_401);

    h.model.enqueue({ text: 'Hi again.' });
    await h.adapter.say('hello again', { from: BOB });
    await settled(h.store, `memory:dm-${BOB.id}`);
    expect(h.app.modelHealth.state).toEqual({ kind: 'answering' });
  });

  it('names an unknown model (404) for an admin', async () => {
    const h = await createHarness({ env: { PARLEY_ADMINS: `memory:${ALICE.id}` } });
    h.model.enqueue({ status: 404, body: { error: { message: 'The model `fake-model` does not exist', code: 'model_not_found' } } });
    await h.adapter.say('hello', { from: ALICE });
    await settled(h.store, `memory:dm-${ALICE.id}`);
    expect(h.adapter.lastBotMessage(`dm-${ALICE.id}`)!.text).toMatch(/\(For admins\) model fake-model at .*: unknown model \(404\)$/);
  });
});
