import { afterEach, describe, expect, it } from 'vitest';
import { settled, waitFor } from '../helpers/harness.ts';
import { botMessages, closeDiscord, sessionKey, startDiscord } from './helpers.ts';

afterEach(closeDiscord);

const EPHEMERAL = 64;

describe('discord: slash commands', () => {
  it('registers the command registry globally at start, with options for arguments', async () => {
    const { dc } = await startDiscord();
    const global = dc.commands.get('global') as { name: string; options: { name: string; required: boolean }[] }[];
    expect(global.map((c) => c.name)).toEqual(['help', 'stop', 'reset', 'approve', 'deny', 'revoke', 'model']);
    expect(global.find((c) => c.name === 'deny')!.options).toEqual([
      expect.objectContaining({ name: 'code', required: true }),
      expect.objectContaining({ name: 'reason', required: false }),
    ]);
  });

  it('registers Chinese descriptions (description_localizations) and answers a Chinese client in Chinese', async () => {
    const { dc } = await startDiscord();
    type Registered = { name: string; description: string; description_localizations: Record<string, string>; options: Registered[] };
    const global = dc.commands.get('global') as Registered[];
    const deny = global.find((c) => c.name === 'deny')!;
    expect(deny.description).toBe('Deny a pending tool call by its code');
    expect(deny.description_localizations).toEqual({ 'zh-CN': '按代码拒绝一个待审批的工具调用' });
    expect(deny.options.find((o) => o.name === 'reason')!.description_localizations).toEqual({ 'zh-CN': '原因（可选）' });

    const wang = dc.user('Wang');
    const { channels } = dc.guild('Team');
    const help = dc.slash(wang, channels[0]!, 'help', {}, 'zh-CN');
    const state = await waitFor(
      () => (dc.interactions.get(help)!.original?.message.content ? dc.interactions.get(help) : undefined),
      'the /help reply',
    );
    expect(state.original!.message.content).toContain('我是 Parley。在群聊里我只看到发给我的消息');
    expect(state.original!.message.content).toContain('/deny <code> [reason]：按代码拒绝一个待审批的工具调用');
  });

  it('registers in one guild with DISCORD_COMMANDS_GUILD', async () => {
    const { dc } = await startDiscord({ env: { DISCORD_COMMANDS_GUILD: '123456789012345678' } });
    expect(dc.commands.has('global')).toBe(false);
    expect((dc.commands.get('123456789012345678') as unknown[]).length).toBe(7);
  });

  it('/stop ends a streaming answer; /help answers only the caller', async () => {
    const { dc, h } = await startDiscord();
    const alice = dc.user('Alice');
    const { channels } = dc.guild('Team');
    const general = channels[0]!;
    h.model.enqueue({ hang: true, text: 'Let me think about this for a very long time' });

    dc.say(alice, general, 'tell me everything', { mention: true });
    const [partial] = await botMessages(dc, general);
    expect(partial!.message.content).toContain('Let me think');
    const stop = dc.slash(alice, general, 'stop');
    const turns = await settled(h.store, sessionKey(general));
    expect(turns[0]!.status).not.toBe('running');
    const stopped = dc.interactions.get(stop)!;
    const ack = await waitFor(() => stopped.ack, 'the /stop acknowledgement');
    expect(ack.at - stopped.createdAt).toBeLessThan(3_000);
    expect(stopped.refusedCallbacks).toBe(0);
    // The effect shows in the stopped answer; the caller alone gets words, and no "thinking…" line stays behind.
    await waitFor(
      () => stopped.followUps.some((m) => m.ephemeral && m.message.content !== '') && stopped.original?.deleted,
      'the /stop reply',
    );
    // The stopped answer says so and keeps what had arrived.
    await waitFor(() => partial!.message.content.includes('Stopped (by Alice)'), 'the stopped answer');
    expect(partial!.message.content).toContain('Let me think');

    const help = dc.slash(alice, general, 'help');
    const state = await waitFor(
      () => (dc.interactions.get(help)!.original?.message.content ? dc.interactions.get(help) : undefined),
      'the /help reply',
    );
    // The answer is the acknowledgement itself: one ephemeral reply.
    expect(state.ack).toMatchObject({ type: 4, flags: EPHEMERAL });
    expect(state.original!.message.content).toContain('/approve');
    expect(state.original!.ephemeral).toBe(true);
    // Nothing visible to the channel besides the stopped answer.
    expect(dc.botMessages(general).filter((m) => m.message.content.includes('/approve'))).toHaveLength(0);

    // /reset concerns everyone: its answer is the command's own reply, visible in the channel.
    const reset = dc.interactions.get(dc.slash(alice, general, 'reset'))!;
    await waitFor(() => reset.original?.message.content.startsWith('Started a fresh conversation'), 'the /reset reply');
    expect(reset.original!.ephemeral).toBe(false);
    expect(reset.ack!.at - reset.createdAt).toBeLessThan(3_000);
    expect(dc.botMessages(general).filter((m) => m.message.content.startsWith('Started a fresh conversation'))).toHaveLength(1);
  });
});
