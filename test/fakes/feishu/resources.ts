// Files in messages, as Feishu holds and serves them: an image message's content is
// `{"image_key":"img_v3_..."}`, a file's `{"file_key":"file_v3_...","file_name":"..."}`, a voice
// note (message_type `audio`) `{"file_key":"file_v3_...","duration":3650}` (milliseconds), and a
// post may hold `{"tag":"img","image_key":"...","width":..,"height":..}` elements (open platform,
// "接收消息内容" / message content reference). They are downloaded with
// GET /open-apis/im/v1/messages/:message_id/resources/:file_key?type=image|file ("获取消息中的资源
// 文件": images with type=image, files, audio and video with type=file; up to 100 MB; the body is
// the file, its type in Content-Type). Refusals are HTTP 400 with `{ code, msg }`; the codes used
// here (234001 bad parameter, 234003 resource not in the message, 234037 over 100 MB, 230011
// message withdrawn) are as we read the platform's error tables, not captured from the service.
import { randomUUID } from 'node:crypto';

const FEISHU_RESOURCE_LIMIT = 100 * 1024 * 1024;

export interface StoredResource {
  messageId: string;
  key: string;
  type: 'image' | 'file';
  bytes: Buffer;
  contentType: string;
  /** What Feishu says the size is (a "huge" file has bytes only nominally). */
  size: number;
}

export interface ResourceAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

function json(status: number, code: number, msg: string): ResourceAnswer {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: Buffer.from(JSON.stringify({ code, msg })) };
}

export class FeishuResources {
  readonly #byKey = new Map<string, StoredResource>();
  readonly #withdrawn = new Set<string>();
  /** Downloads asked for: message, key, type and the status answered. */
  readonly requests: { messageId: string; key: string; type: string | null; status: number }[] = [];

  add(messageId: string, type: 'image' | 'file', bytes: Buffer, contentType: string, size = bytes.length): string {
    const key = `${type === 'image' ? 'img' : 'file'}_v3_${randomUUID().replace(/-/g, '').slice(0, 20)}g`;
    this.#byKey.set(key, { messageId, key, type, bytes, contentType, size });
    return key;
  }

  /** The message was withdrawn (recalled) by its sender. */
  withdraw(messageId: string): void {
    this.#withdrawn.add(messageId);
  }

  serve(messageId: string, key: string, type: string | null): ResourceAnswer {
    const answer = this.#answer(messageId, key, type);
    this.requests.push({ messageId, key, type, status: answer.status });
    return answer;
  }

  #answer(messageId: string, key: string, type: string | null): ResourceAnswer {
    if (type !== 'image' && type !== 'file') return json(400, 234001, 'Invalid request param.');
    if (this.#withdrawn.has(messageId)) return json(400, 230011, 'The message was withdrawn.');
    const resource = this.#byKey.get(key);
    if (!resource || resource.messageId !== messageId) return json(400, 234003, 'File not in msg.');
    if (resource.type !== type) return json(400, 234001, 'Invalid request param.');
    if (resource.size > FEISHU_RESOURCE_LIMIT) return json(400, 234037, 'Downloaded file size exceeds limit.');
    return {
      status: 200,
      headers: {
        'content-type': resource.contentType,
        'content-length': String(resource.bytes.length),
        'content-disposition': `attachment; filename="${key}"`,
      },
      body: resource.bytes,
    };
  }
}
