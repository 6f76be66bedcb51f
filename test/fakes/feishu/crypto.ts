// What Feishu does to a payload when the app has an encrypt key: AES-256-CBC with sha256(key),
// a random IV in front, base64; and the signature header over the raw body.
import { createCipheriv, createHash, randomBytes } from 'node:crypto';

export function encrypt(plain: string, encryptKey: string): string {
  const key = createHash('sha256').update(encryptKey).digest();
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  return Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final()]).toString('base64');
}

export function sign(timestamp: string, nonce: string, encryptKey: string, body: string): string {
  return createHash('sha256')
    .update(timestamp + nonce + encryptKey + body)
    .digest('hex');
}
