// Control commands that arrive as platform interactions (a Discord slash command) are answered
// through the interaction: privately (the acknowledgement's text) when the registry says the answer
// concerns only the caller, otherwise acknowledged first and answered in the chat.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Inbound, InteractionReply } from '../../src/core/types.ts';
import { promptsIn, runs, transfer, transferCall } from '../approvals/helpers.ts';
import { closeAll, createHarness, settled, waitFor } from '../helpers/harness.ts';

afterEach(closeAll);
beforeEach(() => {
  runs.length = 0;
});

let nextEvent = 1;

function slashCommand(text: string, chatType: 'direct' | 'group' = 'group'): Inbound {
  const id = String(nextEvent++);
  return {
    channel: 'memory',
    chatId: chatType === 'group' ? 'group-1' : 'dm-u-alice',
    chatType,
    messageId: `i-${id}`,
    eventId: `interaction-${id}`,
    sender: { id: 'u-alice', displayName: 'Alice', isBot: false },
    text,
    attachments: [],
    mentionsBot: false,
    repliesToBot: false,
    receivedAt: new Date(),
  };
}

/** Records acks and, in `order`, when they happened relative to the chat's messages. */
function recordingInteraction(order: string[]): InteractionReply & { acks: (string | undefined)[] } {
  const acks: (string | undefined)[] = [];
  return {
    acks,
    async ack(text) {
      if (acks.length > 0) return;
      acks.push(text);
      order.push(`ack:${text ?? ''}`);
    },
    async whisper(text) {
      order.push(`whisper:${text}`);
    },
  };
}

describe('slash commands through the interaction', () => {
  it('/help concerns only the caller: it is the acknowledgement, nothing goes to the chat', async () => {
    const h = await createHarness();
    const interaction = recordingInteraction([]);
    await h.app.gateway.onMessage(slashCommand('/help'), interaction);
    expect(interaction.acks).toHaveLength(1);
    expect(interaction.acks[0]).toContain('/approve <code>');
    expect(h.adapter.botMessages()).toEqual([]);
  });

  it('/reset concerns the chat: acknowledged first, then answered in the chat', async () => {
    const h = await createHarness();
    const order: string[] = [];
    const send = h.adapter.send.bind(h.adapter);
    h.adapter.send = async (chat, message) => {
      order.push(`chat:${message.text}`);
      return send(chat, message);
    };
    await h.app.gateway.onMessage(slashCommand('/reset'), recordingInteraction(order));
    expect(order).toEqual([
      'ack:',
      'chat:Started a fresh conversation. (Facts I was asked to remember are kept; ask me to forget them if needed.)',
    ]);
  });

  it('/approve <code> answers the decider alone and the turn goes on', async () => {
    const h = await createHarness({ tools: [transfer] });
    h.model.enqueue({ toolCalls: [transferCall()] }, { text: 'Sent.' });
    await h.adapter.say('send Bob 10 euros');
    const [prompt] = await promptsIn(h.adapter);
    const code = /Code (\S+) \(for/.exec(prompt!.text)?.[1];
    expect(code).toBeTruthy();
    const interaction = recordingInteraction([]);
    await h.app.gateway.onMessage(slashCommand(`/approve ${code}`, 'direct'), interaction);
    expect(interaction.acks).toEqual(['Approved.']);
    await settled(h.store, 'memory:dm-u-alice');
    expect(runs).toEqual(['transfer 10 Bob']);
    await waitFor(() => h.adapter.lastBotMessage()?.text === 'Sent.', 'the answer');
    expect(h.adapter.botMessages().filter((m) => m.text === 'Approved.')).toEqual([]);
  });

  it('a command whose effect shows elsewhere (/stop) still answers the caller', async () => {
    const h = await createHarness();
    h.model.enqueue({ hang: true, text: 'Thinking about it' });
    await h.adapter.say('tell me everything', { chatType: 'group', mention: true });
    await waitFor(() => h.adapter.lastBotMessage('group-1')?.text.includes('Thinking'), 'the streaming answer');
    const order: string[] = [];
    await h.app.gateway.onMessage(slashCommand('/stop'), recordingInteraction(order));
    expect(order).toEqual(['ack:', 'whisper:Done: /stop']);
    const [turn] = await settled(h.store, 'memory:group-1');
    expect(turn!.status).toBe('cancelled');
    await waitFor(() => h.adapter.lastBotMessage('group-1')?.text.includes('Stopped (by Alice)'), 'the stopped answer');
  });

  it('without an interaction, commands answer in the chat as before', async () => {
    const h = await createHarness();
    await h.app.gateway.onMessage(slashCommand('/help'));
    await waitFor(() => h.adapter.lastBotMessage()?.text.includes('/approve <code>'), 'the help text in the chat');
  });
});
