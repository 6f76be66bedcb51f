/** A file or value that cannot become a page; `message` is one line saying why. */
export class PageFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PageFileError';
  }
}
