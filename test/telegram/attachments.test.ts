// Photos, files and other attachments through the real adapter, grammY and the core: a caption is
// the message's text and the model is told what was attached; a message that is only attachments
// gets a short "cannot read yet" reply in a private chat, and is ignored in a group unless addressed.
import { afterEach, describe, expect, it } from 'vitest';
import { settled, waitFor } from '../helpers/harness.ts';
import { botMessages, closeTelegram, drained, sessionKey, startTelegram } from './helpers.ts';

afterEach(closeTelegram);

const PHOTO = {
  photo: [
    { file_id: 'small-photo', file_unique_id: 's', width: 90, height: 60, file_size: 2_100 },
    { file_id: 'large-photo', file_unique_id: 'l', width: 1280, height: 853, file_size: 34_000 },
  ],
};

describe('telegram: attachments', () => {
  it('a photo with a caption reaches the model as the caption plus a note about the photo', async () => {
    const { tg, h } = await startTelegram();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    h.model.enqueue({ text: 'I cannot see it, but tell me about it.' });
    tg.sendMedia(alice, dm, PHOTO, 'What is in this picture?');
    await waitFor(() => tg.botMessages(dm).some((m) => m.message.text === 'I cannot see it, but tell me about it.'), 'the answer');
    await settled(h.store, sessionKey(dm));
    expect(h.model.requests).toHaveLength(1);
    expect(h.model.requests[0]!.body.messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'What is in this picture?\n[Alice attached an image (image/jpeg, 34 KB): I cannot see attachments yet]',
    });
  });

  it('a photo without a caption: a short reply in a private chat, nothing in a group unless addressed', async () => {
    const { tg, h } = await startTelegram();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    tg.sendMedia(alice, dm, PHOTO);
    const [reply] = await botMessages(tg, dm);
    expect(reply!.message.text).toBe('I cannot read images yet. Tell me in words what you need, and I will help.');
    tg.sendMedia(alice, dm, { voice: { file_id: 'voice-1', file_unique_id: 'v', duration: 3, mime_type: 'audio/ogg', file_size: 9_000 } });
    await botMessages(tg, dm, 2);
    expect(tg.botMessages(dm).at(-1)!.message.text).toBe(
      'I cannot read audio recordings yet. Tell me in words what you need, and I will help.',
    );

    const group = tg.group('Team', { supergroup: true });
    tg.sendMedia(alice, group, PHOTO);
    tg.sendMedia(alice, group, {
      document: { file_id: 'doc-1', file_unique_id: 'd', file_name: 'report.pdf', mime_type: 'application/pdf', file_size: 120_000 },
    });
    await drained(tg);
    h.model.enqueue({ text: 'Noted.' });
    tg.sendMedia(
      alice,
      group,
      { document: { file_id: 'doc-2', file_unique_id: 'd2', file_name: 'plan.pdf', mime_type: 'application/pdf', file_size: 2_500_000 } },
      '@parley_test_bot please file this',
    );
    await waitFor(() => tg.botMessages(group).some((m) => m.message.text === 'Noted.'), 'the answer in the group');
    await settled(h.store, sessionKey(group));
    // Only the addressed message reached the model, and it was the only reply in the group.
    expect(tg.botMessages(group)).toHaveLength(1);
    expect(h.model.requests).toHaveLength(1);
    expect(h.model.requests[0]!.body.messages.at(-1)!.content).toBe(
      '[Alice] @parley_test_bot please file this\n[Alice attached a file ("plan.pdf", application/pdf, 2.5 MB): I cannot see attachments yet]',
    );
  });
});
