// On a Node.js older than package.json's "engines", `npm start` and `parley` print one line naming
// the version needed and exit 1, before anything native loads (Node 20 used to segfault).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem, REQUIRED_NODE } from '../../bin/node-version.mjs';
import { tempDir } from '../helpers/harness.ts';
import { ROOT, runCli, spawnNode, START_ENTRY } from './bot-process.ts';

const OLD_NODE = '/usr/bin/node';

function versionOf(node: string): string | undefined {
  if (!existsSync(node)) return undefined;
  return execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
}

const oldNodeVersion = versionOf(OLD_NODE);
const oldNodeIsOld = oldNodeVersion !== undefined && nodeVersionProblem(oldNodeVersion) !== undefined;

describe('the Node.js version check', () => {
  it('matches package.json "engines"', () => {
    const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(engines).toBe(`>=${REQUIRED_NODE.replace(/\.0$/, '')}`);
  });

  it('names the version needed and the one found, in one line', () => {
    expect(nodeVersionProblem('20.20.2')).toBe(
      'parley: Node.js 22.18 or newer is required; this is Node.js 20.20.2. Install a current Node.js (https://nodejs.org) and try again.',
    );
    for (const old of ['22.17.9', '22.12.0', 'v18.19.0', '0.12.0', '22.17.0-nightly20250601'])
      expect(nodeVersionProblem(old)).toMatch(/^parley: Node\.js 22\.18 or newer is required/);
    for (const fine of ['22.18.0', 'v22.18.0', '22.18.1', '23.0.0', '24.11.1', '100.0.0', '22.18.0-rc.1'])
      expect(nodeVersionProblem(fine)).toBeUndefined();
    expect(nodeVersionProblem('banana')).toBe('parley: cannot tell which Node.js this is ("banana"); Parley needs Node.js 22.18 or newer.');
  });

  it('accepts exactly the versions from 22.18.0 on', () => {
    const part = fc.integer({ min: 0, max: 40 });
    fc.assert(
      fc.property(part, part, part, (major, minor, patch) => {
        const older = major < 22 || (major === 22 && minor < 18);
        expect(nodeVersionProblem(`${major}.${minor}.${patch}`) !== undefined).toBe(older);
      }),
      { seed: 42, numRuns: 500 },
    );
  });

  if (process.env.CI) {
    it(`CI has an old Node.js at ${OLD_NODE} to test with`, () => {
      expect(oldNodeVersion, `${OLD_NODE} is missing`).toBeDefined();
      expect(oldNodeIsOld, `${OLD_NODE} is ${oldNodeVersion}`).toBe(true);
    });
  }

  it.runIf(oldNodeIsOld)(`npm start and parley on ${OLD_NODE} (${oldNodeVersion}): one line, exit 1, nothing created`, async () => {
    const dir = tempDir('parley-old-node-');
    const line = `parley: Node.js 22.18 or newer is required; this is Node.js ${oldNodeVersion}. Install a current Node.js (https://nodejs.org) and try again.\n`;
    const start = await spawnNode([START_ENTRY], { cwd: dir, node: OLD_NODE }).exited;
    expect(start).toMatchObject({ code: 1, signal: null, stdout: '', stderr: line });
    const cli = await runCli(['sessions'], { cwd: dir, node: OLD_NODE });
    expect(cli).toMatchObject({ code: 1, signal: null, stdout: '', stderr: line });
    // It stopped before opening (or creating) a database.
    expect(readdirSync(dir)).toEqual([]);
  });
});
