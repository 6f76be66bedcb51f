// Conversations: sessions by channel and chat with their last activity; one conversation's
// transcript as the model saw it (tool calls and results folded), its memory facts, reset, and an
// export as Markdown or JSON.
import { z } from 'zod';
import type { AdminConversation, AdminTranscriptItem } from '../../../src/core/admin.ts';
import { AdminInputError } from '../../../src/core/admin.ts';
import { t } from '../../../src/core/i18n/index.ts';
import { type AdminContext, download, formOf, htmlPage, queryOf } from './context.ts';
import { html } from './html.ts';
import { page, table, when } from './layout.ts';

const SECTION = '/admin/conversations';
const KeySchema = z.string().min(1).max(300);
const viewHref = (key: string) => `${SECTION}/view?key=${encodeURIComponent(key)}`;

export async function conversationsList(a: AdminContext): Promise<Response> {
  const { channel } = queryOf(a.c, z.object({ channel: z.string().max(60).optional() }));
  const sessions = await a.port.conversations.list({ limit: 200, ...(channel ? { channel } : {}) });
  const channels = [...new Set(sessions.map((s) => s.channel))].sort();
  const filter = html`<p class="filters">${channels.length > 1 || channel ? html`<a href="${SECTION}">all</a>` : ''} ${
    channels.length > 1 ? channels.map((ch) => html`<a href="${SECTION}?channel=${encodeURIComponent(ch)}">${ch}</a> `) : ''
  }</p>`;
  const rows = sessions.map((s) => [
    html`<a href="${viewHref(s.key)}">${s.key}</a>`,
    s.channel,
    s.chatType,
    s.messages,
    s.facts,
    `#${s.conversation}`,
    when(s.lastActivity),
  ]);
  const body = html`${filter}${table(['session', 'channel', 'type', 'messages', 'facts', 'conversation', 'last activity'], rows, 'No conversations yet.')}`;
  return htmlPage(a.c, page({ locale: a.locale, title: t(a.locale, 'webAdmin.nav.conversations'), section: SECTION }, body));
}

function item(entry: AdminTranscriptItem) {
  const who = entry.role === 'user' ? (entry.author ?? 'user') : entry.role;
  const calls = entry.toolCalls?.length
    ? html`<details class="tool"><summary>tool calls: ${entry.toolCalls.map((c) => c.name).join(', ')}</summary>${entry.toolCalls.map(
        (c) => html`<pre>${c.name} ${c.arguments}</pre>`,
      )}</details>`
    : '';
  if (entry.role === 'tool') {
    return html`<li class="entry tool${entry.isError ? ' failed' : ''}"><details class="tool"><summary>result of ${entry.toolName ?? 'a tool'}${entry.isError ? ' (error)' : ''}</summary><pre>${entry.text}</pre></details></li>`;
  }
  return html`<li class="entry ${entry.role}"><div class="meta"><strong>${who}</strong> <span class="muted">${when(entry.at)}</span></div>${
    entry.text ? html`<div class="text">${entry.text}</div>` : ''
  }${calls}</li>`;
}

async function conversationOf(a: AdminContext, key: string): Promise<AdminConversation> {
  const conversation = await a.port.conversations.get(key);
  if (!conversation) throw new AdminInputError(`no session with key ${key}`, 404);
  return conversation;
}

export async function conversationView(a: AdminContext): Promise<Response> {
  const { key, reset } = queryOf(a.c, z.object({ key: KeySchema, reset: z.literal('1').optional() }));
  const { session, transcript, facts } = await conversationOf(a, key);
  const exportHref = (format: string) => `${SECTION}/export?key=${encodeURIComponent(key)}&format=${format}`;
  const body = html`<p class="muted">${session.channel} · ${session.chatType} · conversation #${session.conversation} · ${session.messages} messages · last activity ${when(session.lastActivity)}</p>
<p class="actions"><a class="button" href="${exportHref('md')}">${t(a.locale, 'webAdmin.conversations.exportMarkdown')}</a>
<a class="button" href="${exportHref('json')}">${t(a.locale, 'webAdmin.conversations.exportJson')}</a></p>
<h2>${t(a.locale, 'webAdmin.conversations.transcript')}</h2>
${transcript.length ? html`<ol class="transcript">${transcript.map(item)}</ol>` : html`<p class="muted">This conversation is empty.</p>`}
<h2>${t(a.locale, 'webAdmin.conversations.facts')}</h2>
${table(
  ['key', 'value', 'updated'],
  facts.map((f) => [f.key, f.value, when(f.updatedAt)]),
  'No facts.',
)}
<form method="post" action="${SECTION}/reset" class="danger-zone" data-confirm="Start a fresh conversation in ${key}? The transcript above stays in the database; the bot stops seeing it.">
<input type="hidden" name="key" value="${key}">
<button type="submit" class="danger">${t(a.locale, 'webAdmin.conversations.reset')}</button>
</form>`;
  return htmlPage(
    a.c,
    page({ locale: a.locale, title: key, section: SECTION, ...(reset ? { notice: 'Started a fresh conversation.' } : {}) }, body),
  );
}

function markdownOf({ session, transcript, facts }: AdminConversation): string {
  const lines = [`# ${session.key}`, '', `${session.channel} · ${session.chatType} · conversation #${session.conversation}`, ''];
  for (const entry of transcript) {
    const who =
      entry.role === 'user' ? (entry.author ?? 'user') : entry.role === 'tool' ? `tool ${entry.toolName ?? ''}`.trim() : entry.role;
    lines.push(`## ${who} · ${entry.at.toISOString()}`, '');
    if (entry.text) lines.push(entry.role === 'tool' ? ['```', entry.text, '```'].join('\n') : entry.text, '');
    for (const call of entry.toolCalls ?? []) lines.push(`Tool call: \`${call.name}\``, '', '```json', call.arguments, '```', '');
  }
  if (facts.length) {
    lines.push('## Memory facts', '');
    for (const fact of facts) lines.push(`- **${fact.key}**: ${fact.value}`);
    lines.push('');
  }
  return lines.join('\n');
}

export async function conversationExport(a: AdminContext): Promise<Response> {
  const { key, format } = queryOf(a.c, z.object({ key: KeySchema, format: z.enum(['md', 'json']) }));
  const conversation = await conversationOf(a, key);
  const name = `conversation-${key.replace(/[^\w-]+/g, '_')}`;
  return format === 'json'
    ? download(a.c, `${JSON.stringify(conversation, null, 2)}\n`, `${name}.json`, 'application/json; charset=utf-8')
    : download(a.c, markdownOf(conversation), `${name}.md`, 'text/markdown; charset=utf-8');
}

export async function conversationReset(a: AdminContext): Promise<Response> {
  const { key } = await formOf(a.c, z.object({ key: KeySchema }));
  await a.port.conversations.reset(key, a.actor);
  return a.c.redirect(`${viewHref(key)}&reset=1`, 303);
}
