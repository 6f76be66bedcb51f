// Feishu failures as the core's DeliveryError kinds: wait (rate_limited with retry-after,
// transient), send anew (gone), give up (forbidden, too_large, fatal); never a secret in the text.
import { describe, expect, it } from 'vitest';
import { FeishuApiError, checked, toFeishuError } from '../../adapters/feishu/errors.ts';
import { DeliveryError, deliveryFailureOf } from '../../src/core/delivery.ts';

const SECRET = 'app-secret-value-1234';
const axiosError = (status: number | undefined, data?: object, headers?: Record<string, string>) =>
  Object.assign(
    new Error(`Request failed with status code ${status} (secret ${SECRET})`),
    status === undefined ? {} : { response: { status, data, headers } },
  );

describe('feishu: platform failures → DeliveryError', () => {
  it.each([
    [
      'HTTP 429 with the gateway reset header',
      axiosError(429, { code: 99991400, msg: 'too many requests' }, { 'x-ogw-ratelimit-reset': '3' }),
      'rate_limited',
      3000,
    ],
    ['the message rate limit (230020)', axiosError(400, { code: 230020, msg: 'frequency limit' }), 'rate_limited', 1000],
    ['the bot is not in the chat (230002)', axiosError(400, { code: 230002, msg: 'bot not in chat' }), 'forbidden', undefined],
    ['a missing scope (99991672)', axiosError(400, { code: 99991672, msg: 'scope missing' }), 'forbidden', undefined],
    ['a withdrawn message (230011)', axiosError(400, { code: 230011, msg: 'message withdrawn' }), 'gone', undefined],
    ['content too long (230025)', axiosError(400, { code: 230025, msg: 'too long' }), 'too_large', undefined],
    ['a card over the size limit (230099)', axiosError(400, { code: 230099, msg: 'card over 30 KB' }), 'too_large', undefined],
    ['a malformed card (230099)', axiosError(400, { code: 230099, msg: 'unknown tag: markdwn' }), 'fatal', undefined],
    ['a server error', axiosError(503, { code: 1, msg: 'unavailable' }), 'transient', undefined],
    ['no answer at all', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), 'transient', undefined],
    ['a refused secret (10014)', axiosError(200, { code: 10014, msg: 'app secret invalid' }), 'fatal', undefined],
  ])('%s', (_what, raw, kind, retryAfterMs) => {
    const error = toFeishuError('sending a message', raw, [SECRET]);
    expect(error).toBeInstanceOf(DeliveryError);
    expect(deliveryFailureOf(error)).toEqual({ kind, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
    expect(error.message).not.toContain(SECRET);
    expect(error.message).not.toContain('\n');
  });

  it('keeps telling a refused app id or secret apart (start-up says which variable to fix)', () => {
    const error = toFeishuError('start-up', axiosError(200, { code: 10014, msg: 'app secret invalid' }), [SECRET]);
    expect(error.reason).toBe('auth');
    expect(error.message).toContain('FEISHU_APP_SECRET');
  });

  it('a { code != 0 } answer is an error of its kind', () => {
    expect(() => checked('updating a card', { code: 230011, msg: 'gone' }, [])).toThrow(FeishuApiError);
    try {
      checked('updating a card', { code: 230011, msg: 'gone' }, []);
    } catch (error) {
      expect(deliveryFailureOf(error).kind).toBe('gone');
    }
    expect(checked('sending', { code: 0, data: { message_id: 'om_1' } }, [])).toEqual({ message_id: 'om_1' });
  });
});
