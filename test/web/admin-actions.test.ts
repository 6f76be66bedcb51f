// The admin pages' changes over real HTTP on the real core (no browser): a bad or conflicting
// knowledge edit is refused with the text kept, a folder upload keeps its relative paths, a reset
// and a revoke do what /reset and `parley approvals revoke` do and are audited as the admin, and
// the navigation speaks Chinese to a browser that asks for it.
import { strToU8, zipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleClient } from './client.ts';
import { closeConsoles, startConsole, type WebConsole } from './console.ts';

afterEach(closeConsoles);

const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' };

async function adminOf(web: WebConsole): Promise<ConsoleClient> {
  const admin = new ConsoleClient(web.url);
  const link = new URL(web.web.adminLoginUrl!);
  expect((await admin.get(`${link.pathname}${link.search}`)).status).toBe(303);
  return admin;
}

function postForm(client: ConsoleClient, path: string, fields: Record<string, string>): Promise<Response> {
  return client.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...SAME_ORIGIN },
    body: new URLSearchParams(fields).toString(),
  });
}

function importZip(client: ConsoleClient, entries: Record<string, string>): Promise<Response> {
  const form = new FormData();
  const zip = zipSync(Object.fromEntries(Object.entries(entries).map(([path, text]) => [path, strToU8(text)])));
  form.append('zip', new Blob([zip], { type: 'application/zip' }), 'pages.zip');
  return client.request('/admin/knowledge/import', { method: 'POST', headers: SAME_ORIGIN, body: form });
}

function importFolder(client: ConsoleClient, files: Record<string, string>, dryRun: boolean): Promise<Response> {
  const form = new FormData();
  // What Chromium sends for a folder chosen with <input webkitdirectory>: each file's relative path as its name.
  for (const [path, text] of Object.entries(files)) form.append('files', new Blob([text], { type: 'text/markdown' }), path);
  if (dryRun) form.append('dryRun', '1');
  return client.request('/admin/knowledge/import', { method: 'POST', headers: SAME_ORIGIN, body: form });
}

describe('web admin: changes', () => {
  it('imports a folder upload with slugs relative to the folder, as the CLI; refuses a bad, a slug-changing and a conflicting edit, keeping the text', async () => {
    const web = await startConsole();
    const admin = await adminOf(web);
    const files = {
      'handbook/setup.md': '# Setup\n\nInstall the tools.\n',
      'handbook/zh/入门.md': '---\ntitle: 入门\n---\n\n安装工具。\n',
      'handbook/notes.txt': 'not Markdown: ignored',
    };
    const dry = await importFolder(admin, files, true);
    expect(dry.status).toBe(200);
    const dryText = await dry.text();
    expect(dryText).toContain('Dry run: nothing was written. 2 created, 0 updated, 0 unchanged, 0 failed.');
    expect(await web.harness.store.knowledge.count()).toBe(0);
    const real = await importFolder(admin, files, false);
    expect(await real.text()).toContain('2 created, 0 updated, 0 unchanged, 0 failed.');
    // Slugs as `parley knowledge import handbook` gives them: relative to the chosen folder.
    const page = (await web.harness.store.knowledge.get('setup'))!;
    expect(page.title).toBe('Setup');
    expect((await web.harness.store.knowledge.get('zh/入门'))?.title).toBe('入门');

    const bad = '---\ntitle: [unclosed\n---\n\nMy careful rewrite.\n';
    const refused = await postForm(admin, '/admin/knowledge/save', { slug: 'setup', revision: '1', file: bad });
    expect(refused.status).toBe(400);
    const refusedText = await refused.text();
    expect(refusedText).toContain('My careful rewrite.');
    expect(refusedText).toContain('class="error"');

    const renamed = await postForm(admin, '/admin/knowledge/save', {
      slug: 'setup',
      revision: '1',
      file: '---\nslug: elsewhere\ntitle: Setup\n---\n\nMoved.\n',
    });
    expect(renamed.status).toBe(400);
    expect(await renamed.text()).toContain('the slug cannot be changed');

    const saved = await postForm(admin, '/admin/knowledge/save', {
      slug: 'setup',
      revision: '1',
      file: '---\ntitle: Setup\n---\n\nInstall the tools, then run the check.\n',
    });
    expect(saved.status).toBe(303);
    // Someone else saved revision 2 meanwhile: an edit of revision 1 is refused, the text kept.
    const stale = await postForm(admin, '/admin/knowledge/save', {
      slug: 'setup',
      revision: '1',
      file: '---\ntitle: Setup\n---\n\nMy stale version.\n',
    });
    expect(stale.status).toBe(409);
    const staleText = await stale.text();
    expect(staleText).toContain('changed meanwhile');
    expect(staleText).toContain('My stale version.');
    const current = (await web.harness.store.knowledge.get('setup'))!;
    expect(current.revision).toBe(2);
    expect(current.content).toContain('run the check');
    const [latest] = (await web.harness.store.knowledge.history('setup'))!;
    expect(latest).toMatchObject({ revision: 2, source: 'web', author: `web:${web.web.admins[0]}` });
  });

  it("imports a zipped folder (a Mac's __MACOSX copies skipped); refuses a zip that climbs out of its folder, writing nothing", async () => {
    const web = await startConsole();
    const admin = await adminOf(web);
    const climbing = await importZip(admin, { 'ok.md': '# Fine\n', '../escape.md': '# Out\n' });
    expect(climbing.status).toBe(400);
    expect(await climbing.text()).toContain('../escape.md: not a plain relative path; nothing was imported');
    expect(await web.harness.store.knowledge.count()).toBe(0);
    const notZip = await admin.request('/admin/knowledge/import', {
      method: 'POST',
      headers: SAME_ORIGIN,
      body: (() => {
        const form = new FormData();
        form.append('zip', new Blob(['not a zip at all']), 'pages.zip');
        return form;
      })(),
    });
    expect(notZip.status).toBe(400);
    expect(await notZip.text()).toContain('pages.zip is not a readable zip file');
    const mac = await importZip(admin, {
      'wiki/guide.md': '# Guide\n\nRead me.\n',
      '__MACOSX/wiki/._guide.md': '\u0000\u0005binary resource fork',
      'wiki/broken.md': '---\ntitle: [unclosed\n---\n',
    });
    expect(mac.status).toBe(200);
    const report = await mac.text();
    expect(report).toContain('1 created, 0 updated, 0 unchanged, 1 failed.');
    expect((await web.harness.store.knowledge.get('guide'))?.title).toBe('Guide');
    expect(await web.harness.store.knowledge.count()).toBe(1);
  });

  it('resets a conversation and revokes a grant as /reset and parley approvals revoke do, audited as the admin', async () => {
    const web = await startConsole();
    const admin = await adminOf(web);
    const { store } = web.harness;
    const session = await store.sessions.ensure({ key: 'web:dm-u-test', channel: 'web', chatId: 'dm-u-test', chatType: 'direct' });
    await store.messages.append({ sessionId: session.id, epoch: session.epoch, role: 'user', content: 'remember the <b>plan</b>' });
    await store.grants.grant(session.id, 'deploy', 'web:u-test');

    const view = await admin.get('/admin/conversations/view?key=web%3Adm-u-test');
    const viewText = await view.text();
    expect(viewText).toContain('remember the &lt;b&gt;plan&lt;/b&gt;');
    expect(viewText).not.toContain('<b>plan</b>');

    expect((await postForm(admin, '/admin/conversations/reset', { key: 'web:dm-u-test' })).status).toBe(303);
    expect((await store.sessions.get(session.id))?.epoch).toBe(session.epoch + 1);
    expect(await (await admin.get('/admin/conversations/view?key=web%3Adm-u-test')).text()).toContain('This conversation is empty.');

    expect((await postForm(admin, '/admin/approvals/revoke', { session: 'web:dm-u-test', tool: 'deploy' })).status).toBe(303);
    expect(await store.grants.has(session.id, 'deploy')).toBe(false);
    const again = await postForm(admin, '/admin/approvals/revoke', { session: 'web:dm-u-test', tool: 'deploy' });
    expect(again.status).toBe(404);
    expect(await again.text()).toContain('deploy is not granted in web:dm-u-test');

    const audit = await store.audit.list();
    expect(audit.map((e) => [e.action, e.actor.id])).toEqual([
      ['revoke', `web:${web.web.admins[0]}`],
      ['reset', `web:${web.web.admins[0]}`],
    ]);
  });

  it('names the sections in Chinese for a browser that asks for it, in the pages and the chat header', async () => {
    const web = await startConsole();
    const admin = await adminOf(web);
    const headers = { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8' };
    const text = await (await admin.request('/admin/health', { headers })).text();
    for (const name of ['知识库', '审批', '会话', '用量', '运行状态']) expect(text).toContain(name);
    const chat = (await (await admin.request('/api/chat', { headers })).json()) as { adminNav: { label: string }[] };
    expect(chat.adminNav.map((n) => n.label)).toEqual(['知识库', '审批', '会话', '用量', '运行状态']);
    const english = (await admin.json<{ adminNav: { label: string }[] }>('/api/chat')).adminNav.map((n) => n.label);
    expect(english).toEqual(['Knowledge', 'Approvals', 'Conversations', 'Usage', 'Health']);
  });
});
