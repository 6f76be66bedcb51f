// A turn's answer that cannot be delivered yet (the platform refuses or stalls the send, and it is
// retried) must not hold up the session's next message: the next turn starts at once, and its
// answer is sent after the previous one, in order.
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatRef, OutboundMessage, SentRef } from '../../src/core/types.ts';
import { MemoryAdapter } from '../fakes/memory-adapter.ts';
import { closeAll, createHarness, waitFor } from '../helpers/harness.ts';

afterEach(closeAll);

/** Sends park until released while `stalled` (a send stuck behind a rate limit or a slow platform). */
class StallingAdapter extends MemoryAdapter {
  stalled = false;
  parked = 0;
  #release: (() => void)[] = [];

  override async send(chat: ChatRef, message: OutboundMessage): Promise<SentRef> {
    if (this.stalled) {
      this.parked++;
      await new Promise<void>((resolve) => this.#release.push(resolve));
    }
    return super.send(chat, message);
  }

  release(): void {
    this.stalled = false;
    for (const resolve of this.#release.splice(0)) resolve();
  }
}

describe('delivery and the session queue', () => {
  it('the next message is answered while the previous answer is still being delivered, and answers keep their order', async () => {
    const adapter = new StallingAdapter();
    const h = await createHarness({ adapters: [adapter] });
    h.model.setFallback((request) => ({ text: `answer to ${request.body.messages.at(-1)!.content}` }));
    adapter.stalled = true;
    await adapter.say('one');
    await waitFor(() => adapter.parked > 0, 'the first answer to be stuck in a send');
    await adapter.say('two');
    // Before the fix the session waited for the stuck send (here: forever) before taking "two".
    await waitFor(() => h.model.requests.length === 2, 'the second message to reach the model while the first answer is stuck');
    expect(adapter.botMessages()).toEqual([]);
    adapter.release();
    await waitFor(() => adapter.botMessages().length === 2 && adapter.lastBotMessage()!.text === 'answer to two', 'both answers');
    expect(adapter.botMessages().map((m) => m.text)).toEqual(['answer to one', 'answer to two']);
  });
});
