import { afterEach, describe, expect, it } from 'vitest';
import { settled, waitFor } from '../helpers/harness.ts';
import { botMessages, closeDiscord, sessionKey, startDiscord } from './helpers.ts';

afterEach(closeDiscord);

describe('discord: conversations with the real discord.js client', () => {
  it('streams a DM answer into one message by editing it, ending with the complete Markdown text', async () => {
    const { dc, h } = await startDiscord();
    const alice = dc.user('Alice');
    const dm = dc.dm(alice);
    const answer = 'Streaming **works** on Discord: this answer arrives in small pieces and the one message is edited until it is complete.';
    h.model.enqueue({ text: answer, chunkSize: 8, delayMs: 20 });

    dc.say(alice, dm, 'hello bot');
    await settled(h.store, sessionKey(dm));
    const [reply] = await botMessages(dc, dm);
    await waitFor(() => reply!.message.content === answer, 'the final text');
    expect(dc.botMessages(dm)).toHaveLength(1);
    expect(reply!.versions.length).toBeGreaterThanOrEqual(2);
    expect(reply!.versions[0]!.length).toBeLessThan(answer.length);
    // DMs: no reply reference; typing shown before the first message.
    const sends = dc.callsTo('POST', new RegExp(`^/channels/${dm.id}/messages$`));
    expect((sends[0]!.body as { message_reference?: unknown }).message_reference).toBeUndefined();
    const typing = dc.callsTo('POST', new RegExp(`^/channels/${dm.id}/typing$`));
    expect(typing.length).toBeGreaterThanOrEqual(1);
    expect(typing[0]!.at).toBeLessThanOrEqual(sends[0]!.at);
    expect(h.model.requests[0]!.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'hello bot' });
  });
});
