// A chat completion request's body as JSON, put together from pieces kept between requests. A
// conversation's messages are the same objects from round to round and turn to turn
// (src/agent/context.ts keeps them with their history rows), so each is converted and serialized
// once, and a request only adds the messages that are new since the conversation's last one,
// instead of the whole conversation being serialized each time.
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ChatMessage, ToolSpec } from './types.ts';

function toSdkMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content || (message.toolCalls?.length ? null : ''),
        ...(message.toolCalls?.length
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    default:
      return { role: message.role, content: message.content };
  }
}

const messageJson = new WeakMap<ChatMessage, string>();

/** The message in the API's shape, as JSON, made once per message. */
function jsonOf(message: ChatMessage): string {
  let json = messageJson.get(message);
  if (json === undefined) {
    json = JSON.stringify(toSdkMessage(message));
    messageJson.set(message, json);
  }
  return json;
}

/**
 * A conversation as last sent, without its first message (the system prompt, made anew each
 * round): its messages, and their JSON joined with the end of each. Kept by its second message,
 * the oldest one of the conversation itself.
 */
interface SentConversation {
  messages: readonly ChatMessage[];
  joined: string;
  ends: number[];
}

const conversations = new WeakMap<ChatMessage, SentConversation>();

/**
 * The messages' JSON list. What the conversation's last request had in common with this one (the
 * same objects, from the start) is reused; the rest is added.
 */
export function messagesJson(messages: readonly ChatMessage[]): string {
  const [first, key] = messages;
  if (!first) return '[]';
  const head = jsonOf(first);
  if (!key) return `[${head}]`;
  const previous = conversations.get(key);
  let same = 0;
  if (previous) {
    const limit = Math.min(previous.messages.length, messages.length - 1);
    while (same < limit && previous.messages[same] === messages[same + 1]) same++;
  }
  // All of the last request's messages again, and maybe more: its list of ends (this module's own) grows in place.
  const whole = previous !== undefined && same === previous.messages.length;
  let joined = '';
  if (previous && same > 0) joined = whole ? previous.joined : previous.joined.slice(0, previous.ends[same - 1]);
  const ends = whole ? previous.ends : (previous?.ends.slice(0, same) ?? []);
  for (let i = same + 1; i < messages.length; i++) {
    const json = jsonOf(messages[i]!);
    joined = joined === '' ? json : `${joined},${json}`;
    ends.push(joined.length);
  }
  conversations.set(key, { messages: messages.slice(1), joined, ends });
  return `[${head},${joined}]`;
}

const toolsJsons = new WeakMap<readonly ToolSpec[], string>();

/** The tools in the API's shape, as JSON, made once per list (the registry keeps its list until its tools change). */
function toolsJson(specs: readonly ToolSpec[]): string {
  let json = toolsJsons.get(specs);
  if (json === undefined) {
    const tools: ChatCompletionTool[] = specs.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
    json = JSON.stringify(tools);
    toolsJsons.set(specs, json);
  }
  return json;
}

/**
 * JSON.stringify(body) for a body whose `messages` are those `json` (messagesJson) stands for and,
 * given `specs` with any tool, whose `tools` are those specs in the API's shape: what `body` holds
 * under those keys is not read (its keys' places are kept).
 */
export function requestJson(body: object, json: string, specs?: readonly ToolSpec[]): string {
  const pieces: { marker: string; json: string }[] = [{ marker: '"messages":[]', json }];
  if (specs?.length) pieces.push({ marker: '"tools":[]', json: toolsJson(specs) });
  // In a JSON text a key's quotes are the only unescaped ones: each empty list appears once, as its key's value.
  const skeleton = JSON.stringify({ ...body, messages: [], ...(specs?.length ? { tools: [] } : {}) });
  const placed = pieces.map((piece) => ({ ...piece, at: skeleton.indexOf(piece.marker) })).sort((a, b) => a.at - b.at);
  let text = '';
  let from = 0;
  for (const { marker, json, at } of placed) {
    text += `${skeleton.slice(from, at)}${marker.slice(0, -2)}${json}`;
    from = at + marker.length;
  }
  return text + skeleton.slice(from);
}
