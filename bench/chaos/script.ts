// What the soak's fake model answers, and the counting target of its gated tool. Questions are
// "ask qN" (a short answer), "long qN" (a long answer streamed slowly, so kills land mid-stream)
// and "approve qN" (an http_request POST that needs approval, then the answer). Every answer ends
// with done-qN-end; a long one begins with start-qN.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedRequest, Step } from '../../test/fakes/model-server.ts';

export type Kind = 'ask' | 'long' | 'approve';
const QUESTION = /(ask|long|approve) (q\d+)/;

const longAnswer = (id: string): string => `start-${id} ${Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ')} done-${id}-end`;

export function responder(targetUrl: string) {
  return (request: RecordedRequest): Step => {
    const messages = request.body.messages;
    const lastUser = messages.findLastIndex((m) => m.role === 'user');
    const question = QUESTION.exec(messages[lastUser]?.content ?? '');
    if (!question) return { text: 'hello' };
    const [, kind, id] = question as unknown as [string, Kind, string];
    if (kind === 'long') return { text: longAnswer(id), chunkSize: 12, delayMs: 40 };
    const toolResults = messages.slice(lastUser).filter((m) => m.role === 'tool').length;
    if (kind === 'approve' && toolResults === 0) {
      return { toolCalls: [{ name: 'http_request', arguments: { url: targetUrl, method: 'POST', body: id } }] };
    }
    return { text: `done-${id}-end` };
  };
}

/** Counts the POSTs the approved calls make, by question. */
export async function countingTarget(): Promise<{ url: string; posts: Map<string, number>; close(): Promise<void> }> {
  const posts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method === 'POST') posts.set(body, (posts.get(body) ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    posts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
