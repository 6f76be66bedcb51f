// A TCP relay on 127.0.0.1 in front of a real server (PostgreSQL), which a test can cut (every
// connection dropped, new ones refused) and restore on the same port: a database that stops
// answering, for real.
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export class TcpRelay {
  readonly #host: string;
  readonly #targetPort: number;
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  port = 0;

  private constructor(host: string, port: number) {
    this.#host = host;
    this.#targetPort = port;
  }

  static async start(host: string, port: number): Promise<TcpRelay> {
    const relay = new TcpRelay(host, port);
    await relay.restore();
    return relay;
  }

  /** Listens (again, on the same port once it has one) and relays every connection. */
  async restore(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.#targetPort, this.#host);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  /** Drops every connection and stops accepting new ones. */
  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  close(): Promise<void> {
    return this.cut();
  }
}
