// Each model request of a conversation begins with the request before it, byte for byte (a
// provider's prompt cache serves only an exact prefix): in a group chat with remembered facts,
// knowledge put in by the automatic context, and tool rounds.
import { describe, expect, it } from 'vitest';
import { runPrefixConversation } from '../helpers/prefix-conversation.ts';

describe('prompt prefix', () => {
  it('every request of a 10-turn group conversation begins with the whole previous request', async () => {
    const { requests, shares } = await runPrefixConversation();
    // Ten turns, two of them with a tool round.
    expect(requests).toHaveLength(12);
    // What the scenario must exercise: memory in the system prompt, knowledge with some turns, a tool round.
    const last = requests.at(-1)!.body.messages;
    expect(last[0]!.content).toContain('alice_role: Alice runs the shop.');
    // The template, rendered with the chat's variables.
    expect(last[0]!.content).toMatch(
      /^You are Parley, the support assistant of ACME, on memory\.\nThis is the group "ACME support"\.\nWrite in the language of the user \(the bot's own locale is en\)\. Today is \d{4}-\d{2}-\d{2}\./,
    );
    // The template places the date: it is not added again at the end.
    expect(last[0]!.content).not.toContain("Today's date:");
    expect(last.filter((m) => m.role === 'user' && m.content?.includes('<knowledge>')).length).toBeGreaterThanOrEqual(3);
    expect(last.filter((m) => m.role === 'tool')).toHaveLength(2);
    for (const share of shares) expect(share, `request ${share.request}`).toMatchObject({ messages: 1, bytes: 1 });
  });
});
