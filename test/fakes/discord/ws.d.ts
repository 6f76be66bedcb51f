// The few parts of the `ws` package (installed with discord.js, which ships no types for it here)
// that the fake gateway uses.
declare module 'ws' {
  import type { EventEmitter } from 'node:events';
  import type { IncomingMessage, Server } from 'node:http';

  export class WebSocket extends EventEmitter {
    readonly readyState: number;
    send(data: string): void;
    close(code?: number, reason?: string): void;
    terminate(): void;
    on(event: 'message', listener: (data: Buffer) => void): this;
    on(event: 'close', listener: (code: number) => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
  }

  export class WebSocketServer extends EventEmitter {
    constructor(options: { server: Server; path?: string });
    readonly clients: Set<WebSocket>;
    on(event: 'connection', listener: (socket: WebSocket, request: IncomingMessage) => void): this;
    close(callback?: () => void): void;
  }
}
