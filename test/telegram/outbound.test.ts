import { afterEach, describe, expect, it } from 'vitest';
import { errors, type StoredMessage } from '../fakes/telegram/index.ts';
import { settled, waitFor } from '../helpers/harness.ts';
import { botMessages, closeTelegram, sessionKey, startTelegram } from './helpers.ts';

afterEach(closeTelegram);

function words(count: number, seed: string): string {
  return Array.from({ length: count }, (_, i) => `${seed}${i}`).join(' ');
}

function codeLines(count: number, name: string): string {
  return Array.from({ length: count }, (_, i) => `const ${name}${i} = compute(${i}, "${'x'.repeat(20)}");`).join('\n');
}

/** The text covered by each `pre` entity of a message, with its language. */
function preBlocks(message: StoredMessage): { language: string | undefined; code: string }[] {
  const text = message.message.text ?? '';
  return (message.message.entities ?? [])
    .filter((e) => e.type === 'pre')
    .map((e) => ({ language: e.language, code: text.slice(e.offset, e.offset + e.length) }));
}

describe('telegram: long replies, rate limits and formatting fallbacks', () => {
  it('splits a reply longer than 4096 characters into several messages without breaking code blocks', async () => {
    const { tg, h } = await startTelegram();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    const shortCode = codeLines(20, 'small'); // ~1,000 characters: must stay in one piece
    const longCode = codeLines(110, 'big'); // ~5,500 characters: longer than a message on its own
    const answer = [
      words(250, 'intro'),
      `\`\`\`ts\n${shortCode}\n\`\`\``,
      words(300, 'middle'),
      `\`\`\`python\n${longCode}\n\`\`\``,
      'That is **all**.',
    ].join('\n\n');
    expect(answer.length).toBeGreaterThan(2 * 4096);
    h.model.enqueue({ text: answer, chunkSize: 500, delayMs: 5 });

    tg.say(alice, dm, 'write a lot');
    await settled(h.store, sessionKey(dm));
    await waitFor(() => tg.botMessages(dm).at(-1)?.message.text?.endsWith('That is all.'), 'the last piece');
    const messages = tg.botMessages(dm);

    expect(messages.length).toBeGreaterThanOrEqual(3);
    expect(tg.calls.filter((c) => !c.ok)).toEqual([]);
    for (const message of messages) expect(message.message.text!.length).toBeLessThanOrEqual(4096);
    const blocks = messages.flatMap(preBlocks);
    // The short block arrives whole, in one message, with its language.
    expect(blocks.filter((b) => b.code === shortCode)).toEqual([{ language: 'ts', code: shortCode }]);
    // The long block is cut between lines and reopened: its pieces, in order, give back every line.
    const longPieces = blocks.filter((b) => b.language === 'python');
    expect(longPieces.length).toBeGreaterThanOrEqual(2);
    expect(longPieces.map((b) => b.code).join('\n')).toBe(longCode);
    // Nothing is lost or repeated: the visible texts, in order, hold every word once.
    const visible = messages.map((m) => m.message.text).join('\n');
    for (const word of ['intro0', 'intro249', 'middle0', 'middle299'])
      expect(visible.match(new RegExp(`\\b${word}\\b`, 'g'))).toHaveLength(1);
  });

  it('waits out a 429 during streaming (retry_after) and still lands the final text', async () => {
    const { tg, h } = await startTelegram();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    const answer = words(60, 'token');
    h.model.enqueue({ text: answer, chunkSize: 20, delayMs: 25 });
    tg.failNext('editMessageText', errors.tooManyRequests(1));

    tg.say(alice, dm, 'stream please');
    const [reply] = await botMessages(tg, dm);
    await waitFor(() => reply!.message.text === answer, 'the final text', 15_000);

    const edits = tg.callsTo('editMessageText');
    const limited = edits.findIndex((c) => !c.ok);
    expect(limited).toBeGreaterThanOrEqual(0);
    expect(edits[limited]!.error).toMatchObject({ error_code: 429, parameters: { retry_after: 1 } });
    // Every later edit waited at least retry_after; the rate-limited one was retried.
    const later = edits.slice(limited + 1);
    expect(later.length).toBeGreaterThanOrEqual(1);
    for (const call of later) expect(call.at - edits[limited]!.at).toBeGreaterThanOrEqual(1_000);
    expect(later.every((c) => c.ok)).toBe(true);
    expect(later.at(-1)!.params.text).toBe(answer);
  });

  it('lands the final edit even when that very edit is rate limited', async () => {
    const { tg, h } = await startTelegram();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    const answer = `${words(30, 'part')} THE END`;
    h.model.enqueue({ text: answer, chunkSize: 30, delayMs: 20 });
    tg.failNext('editMessageText', errors.tooManyRequests(1), { when: (p) => String(p.text).endsWith('THE END') });

    tg.say(alice, dm, 'finish strongly');
    const [reply] = await botMessages(tg, dm);
    await waitFor(() => reply!.message.text === answer, 'the final text', 15_000);
    const finals = tg.callsTo('editMessageText').filter((c) => String(c.params.text).endsWith('THE END'));
    expect(finals.map((c) => c.ok)).toEqual([false, true]);
    expect(finals[1]!.at - finals[0]!.at).toBeGreaterThanOrEqual(1_000);
  });

  it('resends as plain text when Telegram cannot parse the entities (send and edit)', async () => {
    const { tg, h, log } = await startTelegram();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    tg.failNext('sendMessage', errors.cantParseEntities(), { when: (p) => p.parse_mode === 'HTML' });
    h.model.enqueue({ text: 'Use **bold** and `code` here.' });

    tg.say(alice, dm, 'format something');
    const [reply] = await botMessages(tg, dm);
    await settled(h.store, sessionKey(dm));
    expect(reply!.message.text).toBe('Use **bold** and `code` here.');
    expect(reply!.parseModes).toEqual([undefined]);
    const sends = tg.callsTo('sendMessage');
    expect(sends.map((c) => [c.ok, c.params.parse_mode])).toEqual([
      [false, 'HTML'],
      [true, undefined],
    ]);
    expect(log.lines.some((l) => l.level === 'warn' && l.msg?.includes('plain text'))).toBe(true);

    // Edits fall back the same way: the streamed message keeps being updated.
    tg.failNext('editMessageText', errors.cantParseEntities(), { when: (p) => p.parse_mode === 'HTML' });
    h.model.enqueue({ text: `First *part* ${words(20, 'w')}`, chunkSize: 12, delayMs: 30 });
    tg.say(alice, dm, 'again');
    const [, second] = await botMessages(tg, dm, 2);
    await waitFor(() => second!.message.text?.endsWith('w19'), 'the second answer');
    const failedEdit = tg.callsTo('editMessageText').findIndex((c) => !c.ok);
    expect(failedEdit).toBeGreaterThanOrEqual(0);
    const retry = tg.callsTo('editMessageText')[failedEdit + 1]!;
    expect(retry.ok).toBe(true);
    expect(retry.params.parse_mode).toBeUndefined();
    expect(second!.parseModes).toContain(undefined);
    expect(second!.parseModes.at(-1)).toBe('HTML');
  });

  it('sends the Markdown as plain text when the formatted text would exceed 4096 characters', async () => {
    const { tg, h } = await startTelegram();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    // Each "paragraph, then a list" gains a blank line when rendered: under the limit as Markdown, over it as shown.
    const answer = Array.from({ length: 300 }, (_, i) => `para ${i}\n- item`)
      .join('\n\n')
      .slice(0, 4096)
      .trimEnd();
    expect(answer.length).toBeLessThanOrEqual(4096);
    h.model.enqueue({ text: answer, chunkSize: 1_000, delayMs: 10 });

    tg.say(alice, dm, 'a long list please');
    const [reply] = await botMessages(tg, dm);
    await waitFor(() => reply!.message.text === answer, 'the plain-text answer');
    expect(tg.botMessages(dm)).toHaveLength(1);
    expect(reply!.parseModes.at(-1)).toBeUndefined();
    expect(tg.calls.some((c) => !c.ok && c.error?.description === 'Bad Request: message is too long')).toBe(true);
  });
});
