// A scripted browser for the web console's API over real HTTP: it keeps the cookies the console
// sets (its identity, the access token), so each ConsoleClient is one person.
export interface SseEvent {
  event: string;
  data: unknown;
}

export class ConsoleClient {
  readonly #base: string;
  readonly #cookies = new Map<string, string>();

  constructor(base: string, cookies: Record<string, string> = {}) {
    this.#base = base;
    for (const [name, value] of Object.entries(cookies)) this.#cookies.set(name, value);
  }

  /** The raw Cookie header this client sends. */
  get cookieHeader(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  cookie(name: string): string | undefined {
    return this.#cookies.get(name);
  }

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.#cookies.size && !headers.has('cookie')) headers.set('cookie', this.cookieHeader);
    const response = await fetch(`${this.#base}${path}`, { redirect: 'manual', ...init, headers });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.#cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim());
    }
    return response;
  }

  get(path: string): Promise<Response> {
    return this.request(path);
  }

  post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  }

  async json<T = Record<string, unknown>>(path: string): Promise<T> {
    const response = await this.get(path);
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  }

  /** This client's identity as the server reports it to the client itself. */
  async id(): Promise<string> {
    return (await this.json<{ you: { id: string } }>('/api/chat')).you.id;
  }
}

/** Reads an event stream until `until` matches an event; returns everything read (raw text too). */
export async function readEvents(response: Response, until: (event: SseEvent) => boolean): Promise<{ events: SseEvent[]; raw: string }> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = '';
  let raw = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the event stream ended; read:\n${raw}`);
    buffer += value;
    raw += value;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (!event || data === undefined) continue;
      events.push({ event, data: JSON.parse(data) });
      if (until(events.at(-1)!)) {
        await reader.cancel();
        return { events, raw };
      }
    }
  }
}
