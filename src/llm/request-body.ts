// A chat completion request's messages and tools in the API's shape, and the body's JSON, put
// together from pieces kept between requests. A conversation's messages are the same objects from
// round to round and turn to turn (src/agent/context.ts keeps them with their history rows), so
// each is converted and serialized once, and a request only adds the messages that are new since
// the conversation's last one, instead of the SDK serializing the whole conversation each time
// (its encoder also runs a function on every value).
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

interface ApiForm {
  message: ChatCompletionMessageParam;
  json: string;
}

const apiForms = new WeakMap<ChatMessage, ApiForm>();

/** The message in the API's shape and as JSON, made once per message. */
function apiForm(message: ChatMessage): ApiForm {
  let form = apiForms.get(message);
  if (!form) {
    const converted = toSdkMessage(message);
    form = { message: converted, json: JSON.stringify(converted) };
    apiForms.set(message, form);
  }
  return form;
}

/**
 * A conversation as last sent, without its first message (the system prompt, made anew each
 * round): its messages, their API forms, and their JSON joined with the end of each. Kept by its
 * second message, the oldest one of the conversation itself.
 */
interface SentConversation {
  messages: readonly ChatMessage[];
  api: ChatCompletionMessageParam[];
  joined: string;
  ends: number[];
}

const conversations = new WeakMap<ChatMessage, SentConversation>();

/**
 * The messages in the API's shape, and their JSON list. What the conversation's last request had
 * in common with this one (the same objects, from the start) is reused; the rest is added.
 */
export function sendable(messages: readonly ChatMessage[]): { api: ChatCompletionMessageParam[]; json: string } {
  const [first, key] = messages;
  if (!first) return { api: [], json: '[]' };
  const head = apiForm(first);
  if (!key) return { api: [head.message], json: `[${head.json}]` };
  const previous = conversations.get(key);
  let same = 0;
  if (previous) {
    const limit = Math.min(previous.messages.length, messages.length - 1);
    while (same < limit && previous.messages[same] === messages[same + 1]) same++;
  }
  // All of the last request's messages again, and maybe more: its lists (this module's own) grow in place.
  const whole = previous !== undefined && same === previous.messages.length;
  let joined = '';
  if (previous && same > 0) joined = whole ? previous.joined : previous.joined.slice(0, previous.ends[same - 1]);
  const api = whole ? previous.api : (previous?.api.slice(0, same) ?? []);
  const ends = whole ? previous.ends : (previous?.ends.slice(0, same) ?? []);
  for (let i = same + 1; i < messages.length; i++) {
    const form = apiForm(messages[i]!);
    api.push(form.message);
    joined = joined === '' ? form.json : `${joined},${form.json}`;
    ends.push(joined.length);
  }
  conversations.set(key, { messages: messages.slice(1), api, joined, ends });
  return { api: [head.message, ...api], json: `[${head.json},${joined}]` };
}

const toolForms = new WeakMap<readonly ToolSpec[], { tools: ChatCompletionTool[]; json: string }>();

/** The tools in the API's shape and as JSON, made once per list (the registry keeps its list until its tools change). */
export function toolsForm(specs: readonly ToolSpec[]): { tools: ChatCompletionTool[]; json: string } {
  let form = toolForms.get(specs);
  if (!form) {
    const tools = specs.map((tool) => ({
      type: 'function' as const,
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
    form = { tools, json: JSON.stringify(tools) };
    toolForms.set(specs, form);
  }
  return form;
}

/**
 * JSON.stringify(body) for a body whose `messages` are those `messagesJson` (sendable) stands for
 * and, given `specs` with any tool, whose `tools` are toolsForm(specs).tools.
 */
export function requestJson(body: object, messagesJson: string, specs?: readonly ToolSpec[]): string {
  const pieces: { marker: string; json: string }[] = [{ marker: '"messages":[]', json: messagesJson }];
  if (specs?.length) pieces.push({ marker: '"tools":[]', json: toolsForm(specs).json });
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
