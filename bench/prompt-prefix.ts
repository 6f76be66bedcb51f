// Prompt-cache friendliness: over a scripted 10-turn group conversation (remembered facts,
// knowledge from the automatic context, tool rounds), how much of each model request begins
// exactly as the request before it. Providers cache only an exact prefix and bill cached input at
// 10-50 %; before the date moved out of the clock line, every request shared 0 % with the last.
import { runPrefixConversation } from '../test/helpers/prefix-conversation.ts';

export async function run(): Promise<void> {
  const { requests, shares } = await runPrefixConversation();
  console.log(`scripted 10-turn group conversation: ${requests.length} model requests`);
  console.log('  request  messages  shared prefix (messages)  shared prefix (bytes)');
  for (const share of shares) {
    const count = requests[share.request]!.body.messages.length;
    console.log(
      `  ${String(share.request + 1).padStart(7)}  ${String(count).padStart(8)}  ${share.messages.toFixed(3).padStart(24)}  ${share.bytes.toFixed(4).padStart(21)}`,
    );
  }
  const least = Math.min(...shares.map((s) => s.bytes));
  const mean = shares.reduce((n, s) => n + s.bytes, 0) / shares.length;
  console.log(
    `  shared-prefix share (bytes) of every request after the first: min ${least.toFixed(4)}, mean ${mean.toFixed(4)} (goal ≥ 0.95)`,
  );
}
