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
    expect(last.filter((m) => m.role === 'user' && m.content?.includes('<knowledge>')).length).toBeGreaterThanOrEqual(3);
    expect(last.filter((m) => m.role === 'tool')).toHaveLength(2);
    for (const share of shares) expect(share, `request ${share.request}`).toMatchObject({ messages: 1, bytes: 1 });
  });
});
