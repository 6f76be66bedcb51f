// The web console's small parts on their own: Markdown safety, mentions and commands, the
// bounded transcript and what a viewer sees of it, the access guard, identities and their secret.
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AccessGuard } from '../../adapters/web/access.ts';
import { AdminEpochFile } from '../../adapters/web/admin-epoch.ts';
import { Identities } from '../../adapters/web/identities.ts';
import { loadSecret, SECRET_FILE } from '../../adapters/web/secret.ts';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/harness.ts';
import { chatFor, mentionsBot, normaliseCommand } from '../../adapters/web/identity.ts';
import { createMarkdownRenderer } from '../../adapters/web/markdown.ts';
import { Transcript, viewOf } from '../../adapters/web/transcript.ts';

describe('markdown for the page', () => {
  const render = createMarkdownRenderer();

  it('escapes raw HTML and keeps only http(s) and mailto links', () => {
    expect(render('<b onclick="x()">hi</b>')).toBe('<p>&lt;b onclick=&quot;x()&quot;&gt;hi&lt;/b&gt;</p>\n');
    expect(render('[a](javascript:alert(1)) [b](data:text/html,x) [c](vbscript:x)')).not.toMatch(/<a /);
    expect(render('[mail](mailto:a@example.com)')).toContain(
      '<a href="mailto:a@example.com" target="_blank" rel="noopener noreferrer nofollow">',
    );
    expect(render('see https://example.com/x')).toContain(
      '<a href="https://example.com/x" target="_blank" rel="noopener noreferrer nofollow">',
    );
  });

  it('turns images into links so the page never loads them', () => {
    const html = render('![a cat](https://tracker.example/cat.png)');
    expect(html).not.toContain('<img');
    expect(html).toContain('<a href="https://tracker.example/cat.png" target="_blank" rel="noopener noreferrer nofollow">🖼 a cat</a>');
  });
});

describe('who and where', () => {
  it('gives each person a direct chat and each room one group chat', () => {
    expect(chatFor('u-aaaaaaaa', undefined)).toEqual({ chatId: 'dm-u-aaaaaaaa', chatType: 'direct' });
    expect(chatFor('u-aaaaaaaa', 'ops')).toEqual({ chatId: 'room-ops', chatType: 'group' });
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

describe('what a viewer sees', () => {
  it("shows authors by name, marks the viewer's own messages, and never carries an id", () => {
    const transcript = new Transcript();
    const mine = transcript.add('room-ops', {
      kind: 'message',
      author: { id: 'u-alice', name: 'Alice', isBot: false },
      text: 'hi',
      buttons: [],
    });
    const bot = transcript.add('room-ops', {
      kind: 'message',
      author: { id: 'bot', name: 'Parley', isBot: true },
      text: 'hello',
      buttons: [],
    });
    expect(viewOf(mine, 'u-alice')).toMatchObject({ author: { name: 'Alice', isBot: false, you: true } });
    expect(viewOf(mine, 'u-bob')).toMatchObject({ author: { name: 'Alice', isBot: false, you: false } });
    expect(viewOf(bot, 'bot')).toMatchObject({ author: { name: 'Parley', isBot: true, you: false } });
    expect(JSON.stringify(viewOf(mine, 'u-bob'))).not.toContain('u-alice');
  });
});

describe('access guard', () => {
  it('takes the token from the bearer header or the cookie, and nothing else', () => {
    const guard = new AccessGuard('the-right-token-123456');
    expect(guard.allows('Bearer the-right-token-123456', undefined)).toBe(true);
    expect(guard.allows(undefined, 'the-right-token-123456')).toBe(true);
    expect(guard.allows('Bearer the-right-token-12345', undefined)).toBe(false);
    expect(guard.allows('the-right-token-123456', undefined)).toBe(false);
    expect(guard.allows(undefined, '%E0%A4%A')).toBe(false);
    expect(guard.allows(undefined, undefined)).toBe(false);
  });

  it('without a token, serves only loopback host names', () => {
    const guard = new AccessGuard(undefined);
    expect(guard.hostAllowed('127.0.0.1:3000')).toBe(true);
    expect(guard.hostAllowed('localhost:3000')).toBe(true);
    expect(guard.hostAllowed('[::1]:3000')).toBe(true);
    expect(guard.hostAllowed('attacker.example:3000')).toBe(false);
    expect(guard.hostAllowed('a b')).toBe(false);
    expect(guard.hostAllowed(undefined)).toBe(false);
  });
});

describe('identities', () => {
  const secret = Buffer.alloc(32, 7);
  const admins = new AdminEpochFile(tempDir('parley-web-'));
  const identitiesOf = (key: Buffer) => new Identities({ secret: key, admins, secureCookies: false });

  it('derives one operator id per secret, unguessable without it', () => {
    expect(identitiesOf(secret).operatorId).toBe(identitiesOf(Buffer.from(secret)).operatorId);
    expect(identitiesOf(secret).operatorId).toMatch(/^op-[A-Za-z0-9_-]{22}$/);
    expect(identitiesOf(Buffer.alloc(32, 8)).operatorId).not.toBe(identitiesOf(secret).operatorId);
  });

  it('redeems an admin login code once, and only the newest one', () => {
    const identities = identitiesOf(secret);
    expect(identities.redeem('')).toBe(false);
    const first = identities.newLoginCode();
    const second = identities.newLoginCode();
    expect(identities.redeem(first)).toBe(false);
    expect(identities.redeem(`${second}x`)).toBe(false);
    expect(identities.redeem(second)).toBe(true);
    expect(identities.redeem(second)).toBe(false);
  });

  it('keeps the secret in a file created once, readable by its owner only', () => {
    const dir = tempDir('parley-secret-');
    try {
      const first = loadSecret(undefined, join(dir, 'data'));
      expect(first).toHaveLength(32);
      expect(loadSecret(undefined, join(dir, 'data'))).toEqual(first);
      expect(statSync(join(dir, 'data', SECRET_FILE)).mode & 0o777).toBe(0o600);
      expect(loadSecret('a-secret-from-the-environment-0123456789', join(dir, 'elsewhere'))).toEqual(
        Buffer.from('a-secret-from-the-environment-0123456789'),
      );
      writeFileSync(join(dir, 'data', SECRET_FILE), 'not hex\n');
      expect(() => loadSecret(undefined, join(dir, 'data'))).toThrow(/does not hold the secret it wrote/);
      writeFileSync(join(dir, 'file'), '');
      expect(() => loadSecret(undefined, join(dir, 'file', 'data'))).toThrow(/cannot keep its secret .* set PARLEY_WEB_SECRET/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
