// Why an attachment could not be used, as a reason the chat is told in one short line
// (catalogue texts media.problem.*). The turn goes on with the message's text.

export type MediaProblem =
  | 'too-large'
  | 'timeout'
  | 'not-found'
  | 'expired'
  | 'refused'
  | 'unavailable'
  | 'no-download'
  | 'not-an-image'
  | 'too-many-pixels'
  | 'unreadable-image'
  | 'corrupt-pdf'
  | 'encrypted-pdf'
  | 'unreadable-document'
  | 'unsupported-file'
  | 'unsupported-audio'
  | 'transcription-failed'
  | 'empty';

export class MediaError extends Error {
  readonly problem: MediaProblem;
  /** What the chat line says in the place of {detail} (e.g. what the file really is), when anything. */
  readonly detail?: string;
  constructor(problem: MediaProblem, message: string, options: { detail?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'MediaError';
    this.problem = problem;
    if (options.detail !== undefined) this.detail = options.detail;
  }
}
