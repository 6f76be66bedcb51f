// The model client as the agent uses it once images are in play: before a request, the image
// markers of the conversation's user messages become image parts (the newest `imagesInContext`
// images within a byte budget, read from the session's cache as data: URLs), older or missing
// ones a short note; a model that cannot see gets the notes alone. When the server refuses image
// input, the request is made again with the notes (the turn is answered, once, from the text) and
// in auto mode the refusal is remembered for the model, so later turns send no images to it.
import { IMAGE_MARKER } from '../core/attachments.ts';
import { DEFAULT_LOCALE, type Locale, t } from '../core/i18n/index.ts';
import type { ChatMessage, CompleteOptions, Completion, CompletionRequest, ContentPart, LlmClient } from '../llm/types.ts';
import type { Logger } from '../log.ts';
import type { MediaCache } from './cache.ts';
import { isImageRefusal, type VisionState } from './vision.ts';

export interface MediaClientOptions {
  cache: MediaCache;
  vision: VisionState;
  /** The newest images sent with a request; older ones are shown as their note. */
  imagesInContext: number;
  /** Bytes of images (before base64) one request may carry. */
  imageBytesBudget?: number;
  locale?: Locale;
  log: Logger;
}

const DEFAULT_IMAGE_BYTES = 6_000_000;

type UserMessage = Extract<ChatMessage, { role: 'user' }>;
/** How each marker of a message is shown: the image (its data: URL), or a note. */
type Showing = { url: string } | { note: string };

/** The same message shown the same way is the same object (the request body keeps each message's JSON by object). */
const shownAs = new WeakMap<ChatMessage, Map<string, UserMessage>>();
/** A cached file's data: URL, read once while messages show it. */
const dataUrls = new Map<string, string>();
const MAX_DATA_URLS = 16;

const hasMarker = (message: ChatMessage): message is UserMessage => message.role === 'user' && message.content.includes('⟦image:');

function withShowings(message: UserMessage, showings: Showing[]): UserMessage {
  const key = showings.map((s) => ('url' in s ? s.url.slice(-24) : s.note)).join('\n');
  let known = shownAs.get(message);
  const hit = known?.get(key);
  if (hit) return hit;
  const parts: ContentPart[] = [];
  let text = '';
  let at = 0;
  let index = 0;
  for (const match of message.content.matchAll(IMAGE_MARKER)) {
    text += message.content.slice(at, match.index);
    at = match.index + match[0].length;
    const showing = showings[index++]!;
    if ('note' in showing) {
      text += showing.note;
      continue;
    }
    // The note's line goes first, then its image.
    const lineEnd = message.content.indexOf('\n', at);
    const end = lineEnd < 0 ? message.content.length : lineEnd;
    text += message.content.slice(at, end);
    at = end;
    // Each part stands alone: the line break before a line that follows an image is dropped.
    if (text.trim()) parts.push({ type: 'text', text: (parts.length ? text.replace(/^\n/, '') : text).replace(/ +\]/g, ']') });
    parts.push({ type: 'image', url: showing.url });
    text = '';
  }
  text += message.content.slice(at);
  if (text.trim()) parts.push({ type: 'text', text: parts.length ? text.replace(/^\n/, '') : text });
  const notesOnly = parts.every((part) => part.type === 'text');
  const shown: UserMessage = notesOnly
    ? { role: 'user', content: parts.map((p) => (p.type === 'text' ? p.text : '')).join('') }
    : { role: 'user', content: message.content, parts };
  if (!known) {
    known = new Map();
    shownAs.set(message, known);
  }
  known.set(key, shown);
  return shown;
}

export function mediaClient(inner: LlmClient, options: MediaClientOptions): LlmClient {
  const locale = options.locale ?? DEFAULT_LOCALE;
  const budget = options.imageBytesBudget ?? DEFAULT_IMAGE_BYTES;

  async function dataUrl(sessionId: string, file: string): Promise<string | undefined> {
    const key = `${sessionId}/${file}`;
    const known = dataUrls.get(key);
    if (known) return known;
    const bytes = await options.cache.read(sessionId, file);
    if (!bytes) return undefined;
    const url = `data:${file.endsWith('.webp') ? 'image/webp' : 'image/jpeg'};base64,${bytes.toString('base64')}`;
    dataUrls.set(key, url);
    if (dataUrls.size > MAX_DATA_URLS) dataUrls.delete(dataUrls.keys().next().value!);
    return url;
  }

  /** The messages with every marker a note (`note`), for a model that does not see. */
  function notesOnly(messages: readonly ChatMessage[], note: string): ChatMessage[] {
    return messages.map((message) =>
      hasMarker(message)
        ? withShowings(
            message,
            [...message.content.matchAll(IMAGE_MARKER)].map(() => ({ note })),
          )
        : message,
    );
  }

  /** The newest images within the count and byte budgets as images, the others as notes. */
  async function withImages(messages: readonly ChatMessage[], sessionId: string): Promise<{ messages: ChatMessage[]; images: number }> {
    let count = 0;
    let bytes = 0;
    const out = [...messages];
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i]!;
      if (!hasMarker(message)) continue;
      const files = [...message.content.matchAll(IMAGE_MARKER)].map((match) => match[1]!);
      const showings: Showing[] = new Array(files.length);
      for (let j = files.length - 1; j >= 0; j--) {
        if (count >= options.imagesInContext || bytes >= budget) {
          showings[j] = { note: t(locale, 'media.image.old') };
          continue;
        }
        const url = await dataUrl(sessionId, files[j]!);
        if (!url) {
          showings[j] = { note: t(locale, 'media.image.gone') };
          continue;
        }
        count++;
        bytes += Math.floor((url.length * 3) / 4);
        showings[j] = { url };
      }
      out[i] = withShowings(message, showings);
    }
    return { messages: out, images: count };
  }

  return {
    model: inner.model,
    async complete(request: CompletionRequest, callOptions: CompleteOptions = {}): Promise<Completion> {
      const { sessionId } = callOptions;
      if (!request.messages.some(hasMarker)) return inner.complete(request, callOptions);
      const unseen = t(locale, 'media.image.unseen');
      if (!sessionId || !options.vision.canSee)
        return inner.complete({ ...request, messages: notesOnly(request.messages, unseen) }, callOptions);
      const shown = await withImages(request.messages, sessionId);
      try {
        return await inner.complete({ ...request, messages: shown.messages }, callOptions);
      } catch (error) {
        const refusal = shown.images > 0 ? isImageRefusal(error) : undefined;
        if (!refusal) throw error;
        options.log.warn(
          { reason: refusal, model: inner.model, mode: options.vision.mode },
          'the model server refused image input; answering from the text',
        );
        await options.vision
          .refused(refusal)
          .catch((failure: unknown) => options.log.warn({ err: failure }, 'could not remember that the model refuses images'));
        callOptions.onNotice?.(t(locale, 'media.visionRefused'));
        return inner.complete({ ...request, messages: notesOnly(request.messages, unseen) }, callOptions);
      }
    },
  };
}
