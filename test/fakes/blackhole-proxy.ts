// An HTTP proxy on 127.0.0.1 in front of a fake service that can turn into a black hole: it keeps
// accepting connections and requests but never answers them (and swallows answers still on their
// way), like a platform behind a dead network path.
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export class BlackholeProxy {
  /** Requests that arrived while the hole was open. */
  swallowed = 0;
  #open = false;
  readonly #held = new Set<ServerResponse>();
  readonly #server: Server;
  readonly #target: URL;
  #port = 0;

  private constructor(target: string) {
    this.#target = new URL(target);
    this.#server = createServer((req, res) => {
      if (this.#open) return this.#swallow(res);
      const upstream = request(
        { host: this.#target.hostname, port: this.#target.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          if (this.#open) {
            answer.resume();
            return this.#swallow(res);
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      res.on('close', () => upstream.destroy());
      req.pipe(upstream);
    });
  }

  static async start(target: string): Promise<BlackholeProxy> {
    const proxy = new BlackholeProxy(target);
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    proxy.#port = (proxy.#server.address() as AddressInfo).port;
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /** From now on nothing is answered. */
  blackhole(): void {
    this.#open = true;
  }

  /** Forward again (requests held so far stay unanswered until their clients give up). */
  forward(): void {
    this.#open = false;
  }

  async stop(): Promise<void> {
    for (const res of this.#held) res.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #swallow(res: ServerResponse): void {
    this.swallowed++;
    this.#held.add(res);
    res.on('close', () => this.#held.delete(res));
  }
}
