// Signing out every admin browser without a new secret (which would sign out everyone): `parley web
// reset-admins` (src/cli/web.ts, which writes this file's format) puts a new random epoch in
// <data folder>/web-console.admins, with the digest of a one-time admin login code. An admin's
// identity cookie carries a tag of the epoch it was issued in, and counts only while that epoch
// is the file's. `parley web admin-link` writes a new login code and keeps the epoch (nobody is
// signed out). The file is read again whenever an admin cookie or login code is presented, so a
// running console follows at once. No file: the first epoch (cookies issued before any reset).
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const ADMINS_FILE = 'web-console.admins';

const AdminsFileSchema = z.object({
  /** '' : the first epoch (`parley web admin-link` before any reset keeps the admins signed in). */
  epoch: z.union([z.string().regex(/^[0-9a-f]{32}$/), z.literal('')]),
  /** sha256 (hex) of the login code `reset-admins` printed; gone once used. */
  loginCode: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});

export interface AdminEpoch {
  /** '' before any reset. */
  epoch: string;
  loginCodeDigest?: Buffer;
}

/** A file that is there but not as written: no admin cookie matches it (fail closed). */
const UNREADABLE: AdminEpoch = { epoch: 'unreadable' };

export class AdminEpochFile {
  readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, ADMINS_FILE);
  }

  read(): AdminEpoch {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { epoch: '' } : UNREADABLE;
    }
    let parsed: z.infer<typeof AdminsFileSchema>;
    try {
      parsed = AdminsFileSchema.parse(JSON.parse(text));
    } catch {
      return UNREADABLE;
    }
    return { epoch: parsed.epoch, ...(parsed.loginCode ? { loginCodeDigest: Buffer.from(parsed.loginCode, 'hex') } : {}) };
  }

  /** Forgets the login code once it was used (same epoch; written aside, then renamed). */
  forgetLoginCode(epoch: string): void {
    if (this.read().epoch !== epoch) return;
    const aside = `${this.path}.${process.pid}.${randomBytes(4).toString('hex')}`;
    try {
      writeFileSync(aside, `${JSON.stringify({ epoch })}\n`, { mode: 0o600 });
      renameSync(aside, this.path);
    } finally {
      rmSync(aside, { force: true });
    }
  }
}
