// The web console's small parts on their own: Markdown safety, mentions and commands, the
// bounded transcript, the access guard.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { AccessGuard } from '../../adapters/web/access.ts';
import { chatFor, mentionsBot, normaliseCommand } from '../../adapters/web/identity.ts';
import { createMarkdownRenderer } from '../../adapters/web/markdown.ts';
import { Transcript } from '../../adapters/web/transcript.ts';

describe('markdown for the page', () => {
  const render = createMarkdownRenderer();

  it('escapes raw HTML and keeps only http(s) and mailto links', () => {
    expect(render('<b onclick="x()">hi</b>')).toBe('<p>&lt;b onclick=&quot;x()&quot;&gt;hi&lt;/b&gt;</p>\n');
    expect(render('[a](javascript:alert(1)) [b](data:text/html,x) [c](vbscript:x)')).not.toMatch(/<a /);
    expect(render('[mail](mailto:a@example.com)')).toContain('<a href="mailto:a@example.com" target="_blank" rel="noopener noreferrer nofollow">');
    expect(render('see https://example.com/x')).toContain('<a href="https://example.com/x" target="_blank" rel="noopener noreferrer nofollow">');
  });

  it('turns images into links so the page never loads them', () => {
    const html = render('![a cat](https://tracker.example/cat.png)');
    expect(html).not.toContain('<img');
    expect(html).toContain('<a href="https://tracker.example/cat.png" target="_blank" rel="noopener noreferrer nofollow">🖼 a cat</a>');
  });
});

describe('who and where', () => {
  it('gives each person a direct chat and each room one group chat', () => {
    expect(chatFor('tab-aaaaaaaa', undefined)).toEqual({ chatId: 'dm-tab-aaaaaaaa', chatType: 'direct' });
    expect(chatFor('tab-aaaaaaaa', 'ops')).toEqual({ chatId: 'room-ops', chatType: 'group' });
  });

  it('recognises @mentions of the bot as whole words', () => {
    expect(mentionsBot('@Parley deploy', 'Parley')).toBe(true);
    expect(mentionsBot('hey @parley, deploy', 'Parley')).toBe(true);
    expect(mentionsBot('@Parleybot deploy', 'Parley')).toBe(false);
    expect(mentionsBot('mail me at x@Parley.com', 'Parley')).toBe(false);
    expect(mentionsBot('Parley, deploy', 'Parley')).toBe(false);
  });

  it('normalises /cmd@Bot and drops commands for other bots', () => {
    expect(normaliseCommand('/stop@Parley', 'Parley')).toBe('/stop');
    expect(normaliseCommand('/deny@parley ABC123 too risky', 'Parley')).toBe('/deny ABC123 too risky');
    expect(normaliseCommand('/stop@OtherBot', 'Parley')).toBeUndefined();
    expect(normaliseCommand('hello', 'Parley')).toBe('hello');
  });
});

describe('transcript', () => {
  it('keeps the newest entries of the most recently used chats, with unique ids and revisions', () => {
    const transcript = new Transcript({ entriesPerChat: 3, chats: 2 });
    const author = { id: 'tab-aaaaaaaa', name: 'Ann', isBot: false };
    const ids = ['1', '2', '3', '4'].map((text) => transcript.add('a', { kind: 'message', author, text, buttons: [] }).id);
    expect(new Set(ids).size).toBe(4);
    expect(transcript.list('a').map((e) => (e.kind === 'message' ? e.text : ''))).toEqual(['2', '3', '4']);

    const edited = transcript.update('a', ids[3]!, 'message', (m) => (m.text = '4b'));
    expect(edited).toMatchObject({ text: '4b', rev: 2 });
    expect(transcript.update('a', ids[0]!, 'message', () => {})).toBeUndefined();

    transcript.add('b', { kind: 'message', author, text: 'b', buttons: [] });
    transcript.list('a');
    transcript.update('a', ids[3]!, 'message', () => {});
    transcript.add('c', { kind: 'message', author, text: 'c', buttons: [] });
    expect(transcript.list('b')).toEqual([]);
    expect(transcript.list('a')).toHaveLength(3);
  });
});

describe('access guard', () => {
  const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

  it('takes the token from the bearer header or the cookie, and nothing else', () => {
    const guard = new AccessGuard('the-right-token-123456');
    expect(guard.allows(request({ authorization: 'Bearer the-right-token-123456' }))).toBe(true);
    expect(guard.allows(request({ cookie: 'x=1; parley_web_token=the-right-token-123456' }))).toBe(true);
    expect(guard.allows(request({ authorization: 'Bearer the-right-token-12345' }))).toBe(false);
    expect(guard.allows(request({ cookie: 'parley_web_token=%E0%A4%A' }))).toBe(false);
    expect(guard.allows(request({}))).toBe(false);
  });

  it('without a token, serves only loopback host names', () => {
    const guard = new AccessGuard(undefined);
    expect(guard.hostAllowed(request({ host: '127.0.0.1:3000' }))).toBe(true);
    expect(guard.hostAllowed(request({ host: 'localhost:3000' }))).toBe(true);
    expect(guard.hostAllowed(request({ host: '[::1]:3000' }))).toBe(true);
    expect(guard.hostAllowed(request({ host: 'attacker.example:3000' }))).toBe(false);
    expect(guard.hostAllowed(request({}))).toBe(false);
  });
});
