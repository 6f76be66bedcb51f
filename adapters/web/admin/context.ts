// What every admin page handler gets: the port to the bot, the admin who asks (as audited), the
// page language, and the Markdown renderer the chat uses.
import type { Context } from 'hono';
import { z } from 'zod';
import { type AdminActor, AdminInputError, type AdminPort } from '../../../src/core/admin.ts';
import type { Locale } from '../../../src/core/i18n/index.ts';
import type { ConsoleEnv } from '../api.ts';
import type { MarkdownRenderer } from '../markdown.ts';

export interface AdminContext {
  c: Context<ConsoleEnv>;
  port: AdminPort;
  actor: AdminActor;
  locale: Locale;
  markdown: MarkdownRenderer;
}

/** A form's fields, validated; a bad form is an AdminInputError naming the field. */
export async function formOf<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  const body = await c.req.parseBody({ all: true });
  const result = schema.safeParse(body);
  if (!result.success) {
    throw new AdminInputError(result.error.issues.map((i) => `${i.path.join('.') || 'form'}: ${i.message}`).join('; '));
  }
  return result.data;
}

/** A query's fields, validated like a form. */
export function queryOf<S extends z.ZodType>(c: Context, schema: S): z.infer<S> {
  const result = schema.safeParse(c.req.query());
  if (!result.success) {
    throw new AdminInputError(result.error.issues.map((i) => `${i.path.join('.') || 'query'}: ${i.message}`).join('; '));
  }
  return result.data;
}

export const SlugSchema = z.string().min(1).max(200);
export const RevisionSchema = z.coerce.number().int().min(0).max(1_000_000_000);

/** Sends an HTML page. */
export function htmlPage(c: Context, body: string, status = 200): Response {
  return c.body(body, status as 200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
}

/** A file to download. */
export function download(c: Context, body: string | Uint8Array, name: string, type: string): Response {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  return c.body(new Uint8Array(bytes), 200, {
    'content-type': type,
    'content-disposition': `attachment; filename="${name.replace(/[^\w.-]/g, '_')}"`,
    'cache-control': 'no-store',
  });
}
