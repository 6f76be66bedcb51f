// The reply handle of a card click, with the real SDK and a sink standing in for the core: ack's
// text rides in the callback's answer as a toast; a whisper (no toast is possible after the
// answer) is a reply to the card naming the person; an ack later than the deadline still gets its
// text to the person; a callback Feishu pushes again gets the same answer, and the core sees it once.
// Also what inbound messages carry: attachments of image and file messages.
import { afterEach, describe, expect, it } from 'vitest';
import type { Action, Inbound } from '../../src/core/types.ts';
import { FakeFeishu } from '../fakes/feishu/index.ts';
import { waitFor } from '../helpers/harness.ts';
import { closeFeishu, startBare } from './helpers.ts';

afterEach(closeFeishu);

const noMessages = async () => {};

describe('feishu: the reply handle of a card click', () => {
  it('ack puts its text in the answer; whisper replies to the card naming the person', async () => {
    const actions: Action[] = [];
    const { fs, adapter } = await startBare({
      onMessage: noMessages,
      async onAction(action) {
        actions.push(action);
        await action.reply.ack('Only Bob (who asked) or an admin can decide this.');
        await action.reply.ack('a second ack is a no-op');
        await action.reply.whisper('Ask Bob to click it.');
      },
    });
    const group = fs.group();
    const alice = fs.user('Alice');
    const prompt = await adapter.send(
      { channel: 'feishu', chatId: group.id, chatType: 'group' },
      { text: 'Approve?', buttons: [[{ label: 'Approve', payload: 'tok-1' }]] },
    );
    const click = fs.clickEvent(alice, prompt.messageId, 'Approve');
    const answer = await fs.push(click, { attempts: 1 });
    expect(answer.status).toBe(200);
    expect(answer.body?.toast?.content).toBe('Only Bob (who asked) or an admin can decide this.');
    const whisper = await waitFor(() => fs.botMessages(group).find((m) => m.parentId === prompt.messageId), 'the whisper');
    expect(FakeFeishu.textOf(whisper)).toBe(`<at id=${alice.openId}></at> Ask Bob to click it.`);
    expect(actions).toHaveLength(1);
    expect(actions[0]!.payload).toBe('tok-1');

    // Pushed again (Feishu thought the answer was lost): the same answer, the core not asked twice.
    const again = await fs.push(click, { attempts: 1 });
    expect(again.body?.toast?.content).toBe('Only Bob (who asked) or an admin can decide this.');
    expect(actions).toHaveLength(1);
  });

  it('a click the core acknowledges after the deadline is answered in time; the late text reaches the person', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const { fs, adapter, log } = await startBare(
      {
        onMessage: noMessages,
        async onAction(action) {
          await released;
          await action.reply.ack('Approved.');
        },
      },
      { clickDeadlineMs: 300 },
    );
    const dm = fs.p2p();
    const prompt = await adapter.send(
      { channel: 'feishu', chatId: dm.id, chatType: 'direct' },
      { text: 'Approve?', buttons: [[{ label: 'Approve', payload: 'tok-2' }]] },
    );
    const answer = await fs.push(fs.clickEvent(fs.user('Alice'), prompt.messageId, 'Approve'), { attempts: 1 });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({});
    release();
    const late = await waitFor(() => fs.botMessages(dm).find((m) => m.parentId === prompt.messageId), 'the late text');
    // In a p2p chat there is nobody else to tell apart: no mention.
    expect(FakeFeishu.textOf(late)).toBe('Approved.');
    expect(log.text()).toContain('answered before the core acknowledged it');
  });
});

describe('feishu: attachments', () => {
  it('an image or a file without text reaches the core with what it carries', async () => {
    const inbound: Inbound[] = [];
    const { fs } = await startBare({ onMessage: async (message) => void inbound.push(message), onAction: async () => {} });
    const dm = fs.p2p();
    const alice = fs.user('Alice');
    const withContent = (type: string, content: object) => {
      const { event } = fs.messageEvent(alice, dm, '');
      event.event.message.message_type = type;
      event.event.message.content = JSON.stringify(content);
      return event;
    };
    await fs.push(withContent('image', { image_key: 'img_v3_0abc' }));
    await fs.push(withContent('file', { file_key: 'file_v3_0def', file_name: 'report.pdf' }));
    await fs.push(withContent('sticker', { file_key: 'file_v3_0sticker' }));
    await waitFor(() => inbound.length === 3, 'three messages');
    expect(inbound.map((m) => m.text)).toEqual(['', '', '']);
    // Downloadable ones name their message and resource type (adapters/feishu/files.ts); a sticker cannot be downloaded.
    const [image, file] = inbound.map((m) => m.messageId);
    expect(inbound.map((m) => m.attachments)).toEqual([
      [{ kind: 'image', ref: `${image}/image/img_v3_0abc` }],
      [{ kind: 'file', ref: `${file}/file/file_v3_0def`, name: 'report.pdf' }],
      [{ kind: 'sticker', ref: 'file_v3_0sticker' }],
    ]);
  });
});
