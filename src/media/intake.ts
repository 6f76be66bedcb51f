// The media intake: what a message's attachments become in the user message the model reads and
// the conversation keeps. Only what the turn will use is fetched (no image download for a model
// that cannot see, no audio download without a transcription model). Each file is downloaded
// through its adapter with a size cap and a time limit, recognised by its bytes, then: an image is
// downscaled and cached (the message keeps a marker naming the cached file); a voice note is
// transcribed ("[Alice, voice message, 0:42]: …"); a document's text is read within a budget. What
// cannot be used gets a short line in the chat (`notices`) and a note for the model; the message's
// own text always goes on.
import { describeAttachment, imageMarker, personText, quotedName, senderOf, unreadableReply } from '../core/attachments.ts';
import { DEFAULT_LOCALE, type Locale, t } from '../core/i18n/index.ts';
import type { Attachment, ChannelAdapter, Inbound } from '../core/types.ts';
import type { Logger } from '../log.ts';
import type { MediaCache } from './cache.ts';
import { type DocumentText, docxText, pdfText, plainText } from './documents.ts';
import { downloadAttachment } from './download.ts';
import { IMAGE_LIMITS, type ImageLimits, prepareImage } from './images.ts';
import { MediaError } from './media-error.ts';
import { type Sniffed, sniff } from './sniff.ts';
import type { Transcriber } from './transcribe.ts';
import type { VisionState } from './vision.ts';

export interface MediaIntakeOptions {
  /** The adapter that reported a message, by its channel id. */
  adapterFor: (channel: string) => ChannelAdapter | undefined;
  cache: MediaCache;
  vision: VisionState;
  transcriber?: Transcriber;
  maxBytes: number;
  timeoutMs: number;
  /** Tokens of document text one message may show. */
  documentTokens: number;
  images?: ImageLimits;
  log: Logger;
}

/** What a message becomes: the user message's content, and lines for the chat about what could not be used. */
export interface PreparedMessage {
  content: string;
  notices: string[];
}

export interface PrepareContext {
  /** The session the message belongs to (its images are cached under it). */
  sessionId: string;
  signal?: AbortSignal;
  locale?: Locale;
}

/** At most this many attachments of one message are read; the rest get the plain note. */
const MAX_ATTACHMENTS = 10;

const minutes = (seconds: number) => {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
};

function megabytes(bytes: number): string {
  return bytes < 1_000_000 ? `${Math.round(bytes / 1_000)} KB` : `${Number((bytes / 1_000_000).toFixed(1))} MB`;
}

interface Block {
  text: string;
  notice?: string;
}

export class MediaIntake {
  readonly #o: MediaIntakeOptions;

  constructor(options: MediaIntakeOptions) {
    this.#o = options;
  }

  /** Whether this attachment of a message on `channel` would be read (fetched) for a turn now. */
  canRead(channel: string, attachment: Attachment): boolean {
    // A channel that cannot download (no fetchAttachment) has its attachments described, as before there was an intake.
    if (!this.#o.adapterFor(channel)?.fetchAttachment) return false;
    switch (attachment.kind) {
      case 'image':
      case 'sticker':
        return this.#o.vision.canSee;
      case 'audio':
        return this.#o.transcriber !== undefined;
      case 'file':
        return true;
      default:
        return false;
    }
  }

  /** Whether the message has anything to fetch before its turn (then it takes the mailbox's way, not the immediate start). */
  needsPreparing(inbound: Pick<Inbound, 'attachments' | 'channel'>): boolean {
    return inbound.attachments.some((attachment) => this.canRead(inbound.channel, attachment));
  }

  /** The reply to a message with no text and only attachments that cannot be read now; undefined otherwise. */
  unreadableReply(inbound: Pick<Inbound, 'attachments' | 'text' | 'channel'>, locale: Locale = DEFAULT_LOCALE): string | undefined {
    return unreadableReply(inbound, (attachment) => this.canRead(inbound.channel, attachment), locale);
  }

  /** The user message for a message with nothing to fetch (see needsPreparing): its text and a note per attachment. */
  describe(inbound: Inbound, locale: Locale = DEFAULT_LOCALE): string {
    return [personText(inbound.text), ...inbound.attachments.map((a) => this.#unread(inbound, a, locale))]
      .filter((part) => part.trim() !== '')
      .join('\n');
  }

  /** The user message for `inbound`, its attachments read. Never throws for a bad file: it becomes a notice. */
  async prepare(inbound: Inbound, context: PrepareContext): Promise<PreparedMessage> {
    const locale = context.locale ?? DEFAULT_LOCALE;
    const blocks: Block[] = [];
    let documentTokens = this.#o.documentTokens;
    for (const [index, attachment] of inbound.attachments.entries()) {
      if (context.signal?.aborted) throw context.signal.reason;
      if (index >= MAX_ATTACHMENTS || !this.canRead(inbound.channel, attachment)) {
        blocks.push({ text: this.#unread(inbound, attachment, locale) });
        continue;
      }
      const block = await this.#read(inbound, attachment, { ...context, locale }, documentTokens);
      documentTokens = Math.max(0, documentTokens - (block.documentTokens ?? 0));
      blocks.push(block);
    }
    const content = [personText(inbound.text), ...blocks.map((b) => b.text)].filter((part) => part.trim() !== '').join('\n');
    return { content, notices: blocks.flatMap((b) => (b.notice ? [b.notice] : [])) };
  }

  /** The note for an attachment that is not read (a video; audio without transcription; an image the model cannot see). */
  #unread(inbound: Inbound, attachment: Attachment, locale: Locale): string {
    const vars = { who: senderOf(inbound), what: describeAttachment(attachment, locale) };
    if (!this.#o.adapterFor(inbound.channel)?.fetchAttachment) return t(locale, 'media.note.cannot', vars);
    if ((attachment.kind === 'image' || attachment.kind === 'sticker') && !this.#o.vision.canSee)
      return t(locale, 'media.note.cannotSee', vars);
    if (attachment.kind === 'audio' && !this.#o.transcriber) return t(locale, 'media.note.cannotListen', vars);
    return t(locale, 'media.note.cannot', vars);
  }

  async #read(
    inbound: Inbound,
    attachment: Attachment,
    context: PrepareContext & { locale: Locale },
    documentTokens: number,
  ): Promise<Block & { documentTokens?: number }> {
    const { locale } = context;
    try {
      const bytes = await downloadAttachment(this.#o.adapterFor(inbound.channel), attachment, {
        maxBytes: this.#o.maxBytes,
        timeoutMs: this.#o.timeoutMs,
        ...(context.signal ? { signal: context.signal } : {}),
      });
      if (bytes.length === 0) throw new MediaError('empty', 'the file is empty');
      const sniffed = sniff(bytes.subarray(0, 4_096));
      return await this.#use(inbound, attachment, bytes, sniffed, context, documentTokens);
    } catch (error) {
      if (!(error instanceof MediaError)) {
        if (context.signal?.aborted) throw error;
        this.#o.log.warn({ err: error, channel: inbound.channel, kind: attachment.kind }, 'an attachment could not be read');
      }
      const problem =
        error instanceof MediaError ? error : new MediaError('unreadable-document', (error as Error).message, { cause: error });
      this.#o.log.info(
        { channel: inbound.channel, kind: attachment.kind, problem: problem.problem, why: problem.message },
        'attachment not used',
      );
      const name = attachment.name?.trim() ? quotedName(attachment.name) : t(locale, `media.this.${attachment.kind}`);
      const notice = t(locale, `media.problem.${problem.problem}`, {
        name,
        limit: megabytes(this.#o.maxBytes),
        detail: problem.detail ?? '',
      });
      const note = t(locale, 'media.note.failed', { who: senderOf(inbound), what: describeAttachment(attachment, locale), reason: notice });
      return { text: note, notice };
    }
  }

  async #use(
    inbound: Inbound,
    attachment: Attachment,
    bytes: Buffer,
    sniffed: Sniffed,
    context: PrepareContext & { locale: Locale },
    documentTokens: number,
  ): Promise<Block & { documentTokens?: number }> {
    const { locale } = context;
    const who = senderOf(inbound);
    const what = describeAttachment(attachment, locale);
    // Animated stickers (Telegram's Lottie .tgs, WebM video stickers) are not images: described, no complaint.
    if (attachment.kind === 'sticker' && sniffed.kind !== 'image') return { text: t(locale, 'media.note.cannot', { who, what }) };
    if (attachment.kind === 'image' && sniffed.kind !== 'image') {
      throw new MediaError('not-an-image', `the bytes are ${sniffed.mime}`, { detail: t(locale, `media.what.${sniffed.kind}`) });
    }
    switch (sniffed.kind) {
      case 'image': {
        if (!this.#o.vision.canSee) return { text: t(locale, 'media.note.cannotSee', { who, what }) };
        const image = await prepareImage(bytes, this.#o.images ?? IMAGE_LIMITS);
        const file = await this.#o.cache.put(context.sessionId, image.bytes, image.ext);
        return { text: t(locale, 'media.note.image', { who, what, marker: imageMarker(file) }) };
      }
      case 'audio': {
        if (!this.#o.transcriber) return { text: t(locale, 'media.note.cannotListen', { who, what }) };
        const heard = await this.#o.transcriber.transcribe(bytes, sniffed, context.signal);
        const label = this.#audioLabel(attachment, locale);
        if (!heard) return { text: t(locale, 'media.note.heardNothing', { who, label }) };
        return { text: t(locale, 'media.note.heard', { who, label, text: personText(heard) }) };
      }
      case 'pdf':
        return this.#document(who, what, await pdfText(bytes, documentTokens, context.signal), locale);
      case 'docx':
      case 'zip':
        try {
          return this.#document(who, what, await docxText(bytes, documentTokens), locale);
        } catch (error) {
          if (sniffed.kind === 'docx' || (error instanceof MediaError && error.problem === 'empty')) throw error;
          throw new MediaError('unsupported-file', 'a ZIP archive that is not a Word document', { detail: t(locale, 'media.what.zip') });
        }
      case 'text':
      case 'html':
        return this.#document(who, what, plainText(bytes, documentTokens), locale);
      default:
        throw new MediaError('unsupported-file', `the bytes are ${sniffed.mime}`, { detail: t(locale, `media.what.${sniffed.kind}`) });
    }
  }

  #audioLabel(attachment: Attachment, locale: Locale): string {
    const base =
      attachment.voice || !attachment.name?.trim()
        ? t(locale, 'media.voice')
        : t(locale, 'media.audioFile', { name: quotedName(attachment.name) });
    return attachment.durationSeconds !== undefined ? `${base}, ${minutes(attachment.durationSeconds)}` : base;
  }

  #document(who: string, what: string, document: DocumentText, locale: Locale): Block & { documentTokens: number } {
    if (!document.text.trim()) throw new MediaError('empty', 'no text');
    const more = document.pagesLeft
      ? `\n${t(locale, 'media.note.morePages', { count: document.pagesLeft.toLocaleString('en-US') })}`
      : document.cut
        ? `\n${t(locale, 'media.note.restCut')}`
        : '';
    const text = `${personText(document.text)}${more}`;
    return { text: t(locale, 'media.note.document', { who, what, text }), documentTokens: Math.ceil(text.length / 4) };
  }
}
