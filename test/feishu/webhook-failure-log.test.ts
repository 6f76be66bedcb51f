// A message the core fails to take (an error that waiting cannot fix) is not acknowledged, so
// Feishu pushes it again, and the failure is logged once, not once by the adapter and again by the
// webhook handler.
import { afterEach, describe, expect, it } from 'vitest';
import { closeFeishu, startBare } from './helpers.ts';

afterEach(closeFeishu);

describe('feishu webhook: a message the core cannot take', () => {
  it('is answered with an error (pushed again later) and logged once', async () => {
    const { fs, log } = await startBare({
      onMessage: async () => {
        throw new Error('the core refused it');
      },
      onAction: async () => {},
    });
    const delivery = await fs.push(fs.messageEvent(fs.user('Alice'), fs.p2p(), 'hello').event, { attempts: 1 });
    expect(delivery.status).not.toBe(200);
    const failures = log.lines.filter((l) => (l.level === 'error' || l.level === 'warn') && l.msg?.includes('the core refused it'));
    expect(failures.map((l) => l.msg)).toEqual(['a Feishu message could not be taken: the core refused it']);
  });
});
