// Reading what a platform's media end-to-end test needs from the fake model: the newest user
// message of a request, and what it carried (its text, its image parts decoded).
import sharp from 'sharp';
import type { RecordedRequest } from '../fakes/model-server.ts';

type Message = RecordedRequest['body']['messages'][number];

export function lastUser(request: RecordedRequest): Message {
  const message = request.body.messages.findLast((m) => m.role === 'user');
  if (!message) throw new Error('the request has no user message');
  return message;
}

/** The images of the newest user message: media type and pixel size of each. */
export async function imagesOfLastUser(request: RecordedRequest): Promise<string[]> {
  const urls = (lastUser(request).parts ?? []).flatMap((part) => (part.type === 'image_url' ? [part.image_url.url] : []));
  return Promise.all(
    urls.map(async (url) => {
      const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
      if (!match) throw new Error(`not a data: URL: ${url.slice(0, 40)}`);
      const meta = await sharp(Buffer.from(match[2]!, 'base64')).metadata();
      return `${match[1]} ${meta.width}x${meta.height}`;
    }),
  );
}
