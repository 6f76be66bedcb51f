// The bounded shutdown steps: a step that never ends is cut off, reported, and does not keep the
// steps after it from running.
import { describe, expect, it } from 'vitest';
import { boundStop, runSteps, StepTimeout, withDeadline } from '../../src/shutdown.ts';

const never = () => new Promise<never>(() => {});

describe('shutdown steps', () => {
  it('withDeadline passes results and errors through, and cuts off a step that hangs', async () => {
    await expect(withDeadline('quick', 1_000, async () => 7)).resolves.toBe(7);
    await expect(withDeadline('broken', 1_000, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(withDeadline('stopping telegram', 50, never)).rejects.toThrow(new StepTimeout('stopping telegram', 50));
    await expect(withDeadline('stopping telegram', 50, never)).rejects.toThrow('stopping telegram did not finish within 0.05 s');
  });

  it('runSteps runs every step in order, reports the late and the failed, and says whether all finished', async () => {
    const ran: string[] = [];
    const reported: string[] = [];
    const clean = await runSteps(
      [
        {
          what: 'app',
          ms: 50,
          run: () => {
            ran.push('app');
            return never();
          },
        },
        { what: 'db', ms: 1_000, run: async () => void ran.push('db') },
        {
          what: 'lock',
          ms: 1_000,
          run: async () => {
            ran.push('lock');
            throw new Error('gone');
          },
        },
      ],
      (error, step) => reported.push(`${step.what}: ${(error as Error).message}`),
    );
    expect(ran).toEqual(['app', 'db', 'lock']);
    expect(reported).toEqual(['app: app did not finish within 0.05 s', 'lock: gone']);
    expect(clean).toBe(false);
    expect(await runSteps([{ what: 'db', ms: 1_000, run: async () => {} }], () => {})).toBe(true);
  });

  it("boundStop bounds an adapter's stop and keeps it working on the adapter itself", async () => {
    class Adapter {
      readonly id = 'slow';
      readonly hang: boolean;
      #stopped = false;
      constructor(hang: boolean) {
        this.hang = hang;
      }
      async stop(): Promise<void> {
        this.#stopped = true;
        if (this.hang) await never();
      }
      get stopped() {
        return this.#stopped;
      }
    }
    const quick = boundStop(new Adapter(false), 1_000);
    await quick.stop();
    expect(quick.stopped).toBe(true);
    const slow = boundStop(new Adapter(true), 50);
    await expect(slow.stop()).rejects.toThrow('stopping slow did not finish within 0.05 s');
    expect(slow.stopped).toBe(true);
  });
});
