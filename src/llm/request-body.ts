// A chat completion request's body as JSON (UTF-8), put together from pieces kept between requests.
// A conversation's messages are the same objects from round to round and turn to turn
// (src/agent/context.ts keeps them with their history rows), so each is converted and serialized
// once, and a request only adds the messages that are new since the conversation's last one,
// instead of the whole conversation being serialized and encoded each time.
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ChatMessage, ContentPart, ToolSpec } from './types.ts';

/** A user message's parts in the API's shape: text parts and image_url parts. */
function sdkParts(parts: readonly ContentPart[]) {
  return parts.map((part) =>
    part.type === 'text' ? { type: 'text' as const, text: part.text } : { type: 'image_url' as const, image_url: { url: part.url } },
  );
}

function toSdkMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content || (message.toolCalls?.length ? null : ''),
        ...(message.toolCalls?.length
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                // Gemini refuses the next round unless a call's thought signature (`extra_content`) comes back with it.
                ...call.extra,
                id: call.id,
                type: 'function' as const,
                // A call without arguments: some servers (vLLM before #19419) refuse "" replayed in history.
                function: { name: call.name, arguments: call.arguments.trim() === '' ? '{}' : call.arguments },
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'user':
      return message.parts ? { role: 'user', content: sdkParts(message.parts) } : { role: 'user', content: message.content };
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
 * round): its messages, and their JSON joined by commas as UTF-8 at the start of `bytes` (up to the
 * last of `ends`, each message's end; the rest is room for the next messages). Kept by its second
 * message, the oldest one of the conversation itself; its bytes are written in place.
 */
interface SentConversation {
  messages: readonly ChatMessage[];
  bytes: Buffer;
  ends: number[];
}

/** How many bytes of the conversation's JSON are written. */
const lengthOf = (sent: SentConversation): number => sent.ends.at(-1) ?? 0;

const conversations = new WeakMap<ChatMessage, SentConversation>();

/** The messages' JSON list in two parts: the first message's JSON, and the others' joined by commas (UTF-8). */
export interface MessagesJson {
  first: string | undefined;
  /** Valid until the next messagesJson of the same conversation (requestJson copies it at once). */
  rest: Buffer;
}

const NO_BYTES = Buffer.alloc(0);
/** A conversation's bytes start with this much room, and grow by half again when full. */
const FIRST_CAPACITY = 4_096;

/** Adds `text` (a comma first unless it is the first) at the end of the conversation's bytes. */
function appendJson(sent: SentConversation, json: string): void {
  const length = lengthOf(sent);
  const text = length === 0 ? json : `,${json}`;
  // At most 3 UTF-8 bytes per UTF-16 unit: room for that, and the exact length is what was written.
  const most = length + text.length * 3;
  if (most > sent.bytes.length) {
    const grown = Buffer.allocUnsafe(Math.max(FIRST_CAPACITY, Math.ceil(most * 1.5)));
    sent.bytes.copy(grown, 0, 0, length);
    sent.bytes = grown;
  }
  sent.ends.push(length + sent.bytes.write(text, length, 'utf8'));
}

/**
 * The messages' JSON list. What the conversation's last request had in common with this one (the
 * same objects, from the start) is reused as it was encoded; the rest is added.
 */
export function messagesJson(messages: readonly ChatMessage[]): MessagesJson {
  const [first, key] = messages;
  if (!first) return { first: undefined, rest: NO_BYTES };
  if (!key) return { first: jsonOf(first), rest: NO_BYTES };
  const previous = conversations.get(key);
  let same = 0;
  if (previous) {
    const limit = Math.min(previous.messages.length, messages.length - 1);
    while (same < limit && previous.messages[same] === messages[same + 1]) same++;
  }
  let sent: SentConversation;
  if (previous && same > 0) {
    // Cut back to what is the same, in place: the bytes and ends are this module's own (requestJson copied them).
    sent = previous;
    sent.ends.length = same;
  } else sent = { messages: [], bytes: Buffer.allocUnsafe(FIRST_CAPACITY), ends: [] };
  for (let i = same + 1; i < messages.length; i++) appendJson(sent, jsonOf(messages[i]!));
  sent.messages = messages.slice(1);
  conversations.set(key, sent);
  return { first: jsonOf(first), rest: sent.bytes.subarray(0, lengthOf(sent)) };
}

const toolsJsons = new WeakMap<readonly ToolSpec[], Buffer>();

/** The tools in the API's shape, as JSON (UTF-8), made once per list (the registry keeps its list until its tools change). */
function toolsJson(specs: readonly ToolSpec[]): Buffer {
  let json = toolsJsons.get(specs);
  if (json === undefined) {
    const tools: ChatCompletionTool[] = specs.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
    json = Buffer.from(JSON.stringify(tools));
    toolsJsons.set(specs, json);
  }
  return json;
}

/**
 * JSON.stringify(body), as UTF-8, for a body whose `messages` are those `messages` (messagesJson)
 * stand for and, given `specs` with any tool, whose `tools` are those specs in the API's shape:
 * what `body` holds under those keys is not read (its keys' places are kept). The kept pieces are
 * copied in as they are, not encoded again.
 */
export function requestJson(body: object, messages: MessagesJson, specs?: readonly ToolSpec[]): Buffer {
  const list =
    messages.first === undefined
      ? [Buffer.from('[]')]
      : [Buffer.from(`[${messages.first}${messages.rest.length ? ',' : ''}`), messages.rest, Buffer.from(']')];
  const pieces: { marker: string; bytes: Buffer[] }[] = [{ marker: '"messages":[]', bytes: list }];
  if (specs?.length) pieces.push({ marker: '"tools":[]', bytes: [toolsJson(specs)] });
  // In a JSON text a key's quotes are the only unescaped ones: each empty list appears once, as its key's value.
  const skeleton = JSON.stringify({ ...body, messages: [], ...(specs?.length ? { tools: [] } : {}) });
  const placed = pieces.map((piece) => ({ ...piece, at: skeleton.indexOf(piece.marker) })).sort((a, b) => a.at - b.at);
  const parts: Buffer[] = [];
  let from = 0;
  for (const { marker, bytes, at } of placed) {
    parts.push(Buffer.from(`${skeleton.slice(from, at)}${marker.slice(0, -2)}`), ...bytes);
    from = at + marker.length;
  }
  parts.push(Buffer.from(skeleton.slice(from)));
  return Buffer.concat(parts);
}
