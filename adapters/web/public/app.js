// The web console page. The server knows who this browser is (a signed, HttpOnly cookie it set);
// every tab of the browser is the same person, and the name at the top is only what this tab
// calls itself. `?room=<name>` joins a shared group chat, otherwise it is the browser's direct chat.
// The chat's history comes from /api/chat, changes arrive over Server-Sent Events (/api/events).
// Bot messages arrive as HTML the server rendered from Markdown with any raw HTML escaped;
// everything else is inserted as plain text. The page's own words come from /api/texts, in the
// browser's language (or PARLEY_LOCALE's), English until they arrive. Files dropped or pasted go
// through uploads.js.

import { attachmentsElement, clearAttachments, hasAttachments, readyAttachments, setUpUploads } from './uploads.js';

const byId = (id) => document.getElementById(id);
const messages = byId('messages');
const box = byId('text');
const nameInput = byId('name');

const room = new URLSearchParams(location.search).get('room') || undefined;

function randomHex(bytes) {
  const values = new Uint8Array(bytes);
  crypto.getRandomValues(values);
  return Array.from(values, (b) => b.toString(16).padStart(2, '0')).join('');
}

function tabValue(key, make) {
  let value = sessionStorage.getItem(key);
  if (!value) {
    value = make();
    sessionStorage.setItem(key, value);
  }
  return value;
}

let name = tabValue('parley.name', () => `Guest ${randomHex(2)}`);
let botName = 'Parley';
const query = new URLSearchParams(room ? { room } : {}).toString();

// ---- the page's words --------------------------------------------------------------------

/** key → text with {placeholders}; English defaults for what is written before /api/texts answers. */
let texts = {
  'web.title': '{bot} · web console',
  'web.placeholder': 'Write a message…',
  'web.placeholderDirect': 'Message {bot}',
  'web.placeholderRoom': 'Message the room; mention @{bot} to ask the bot',
  'web.chatDirect': '· direct chat',
  'web.chatRoom': '· room “{room}” (group: mention @{bot} to ask)',
  'web.you': '{name} (you)',
  'web.typing': '{name} is typing…',
  'web.browserId': "This browser's id: {id} (PARLEY_ADMINS=web:{id} makes it an admin)",
  'web.needsToken': 'This console needs its access token: open it once as this address with ?token=<PARLEY_WEB_TOKEN>.',
  'web.answered': 'The console answered {status}.',
  'web.lostTooMany': 'Lost the connection (too many open console tabs in this browser?). Reload the page to reconnect.',
  'web.reconnecting': 'Connection lost; reconnecting…',
  'web.uploading': '{name} · uploading…',
  'web.pastedFile': 'pasted file',
  'web.removeFile': 'Remove',
};

/** The text for `key`, {placeholders} filled from `vars` (plain text: inserted with textContent only). */
function say(key, vars = {}) {
  const template = texts[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

/** Writes the page's fixed words (data-text, data-text-title, data-text-placeholder) in the current language. */
function applyTexts() {
  for (const element of document.querySelectorAll('[data-text]')) {
    element.textContent = say(element.dataset.text, { bot: botName });
  }
  for (const element of document.querySelectorAll('[data-text-title]')) element.title = say(element.dataset.textTitle);
  box.setAttribute('aria-label', say('web.messageLabel'));
}

async function loadTexts() {
  try {
    const response = await fetch('/api/texts');
    if (!response.ok) return;
    const data = await response.json();
    texts = { ...texts, ...data.texts };
    document.documentElement.lang = data.locale;
    applyTexts();
    setBotName(botName);
  } catch {
    // The English words stay.
  }
}

/** id → { entry, element } of everything shown. */
const shown = new Map();

// ---- talking to the server -----------------------------------------------------------------

async function post(path, body) {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error || say('web.answered', { status: response.status }));
  return data;
}

function sendText(text, attachments) {
  return post('/api/messages', { name, room, text, ...(attachments?.length ? { attachments } : {}) });
}

async function loadHistory() {
  const response = await fetch(`/api/chat?${query}`);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    showBanner(response.status === 401 ? say('web.needsToken') : data.error || say('web.answered', { status: response.status }));
    return false;
  }
  setBotName(data.botName);
  showYou(data.you, data.adminNav);
  for (const entry of data.entries) show(entry);
  byId('empty').hidden = shown.size > 0;
  return true;
}

function connect() {
  const events = new EventSource(`/api/events?${query}`);
  events.addEventListener('open', async () => {
    // Also after a reconnect: whatever changed while the stream was down comes with the history.
    if (await loadHistory()) {
      byId('banner').hidden = true;
      document.body.dataset.ready = 'true';
    }
  });
  events.addEventListener('entry', (event) => show(JSON.parse(event.data)));
  events.addEventListener('typing', (event) => showTyping(JSON.parse(event.data).name));
  // Meant for this browser alone (e.g. what a button press led to, after its toast).
  events.addEventListener('whisper', (event) => showToast(JSON.parse(event.data).text));
  events.addEventListener('error', () => {
    document.body.dataset.ready = 'false';
    // The server refused the stream (or is gone): too many open tabs of the console is one reason.
    if (events.readyState === EventSource.CLOSED) {
      void loadHistory().then((ok) => ok && showBanner(say('web.lostTooMany')));
    } else showBanner(say('web.reconnecting'));
  });
}

// ---- rendering -----------------------------------------------------------------------------

function show(entry) {
  const known = shown.get(entry.id);
  if (known && known.entry.rev >= entry.rev) return;
  const stick = messages.scrollHeight - messages.scrollTop - messages.clientHeight < 80;
  const element = entry.kind === 'message' ? messageElement(entry) : activityElement(entry);
  element.dataset.id = entry.id;
  element.dataset.seq = String(entry.seq);
  if (known) known.element.replaceWith(element);
  else insertInOrder(element, entry.seq);
  shown.set(entry.id, { entry, element });
  byId('empty').hidden = true;
  if (entry.kind === 'message' && entry.author.isBot) hideTyping();
  if (stick || (entry.kind === 'message' && entry.author.you)) messages.scrollTop = messages.scrollHeight;
}

function insertInOrder(element, seq) {
  const later = [...messages.children].find((child) => Number(child.dataset.seq) > seq);
  messages.insertBefore(element, later ?? null);
}

function messageElement(entry) {
  const mine = entry.author.you;
  const element = document.createElement('article');
  element.className = `msg ${entry.author.isBot ? 'bot' : mine ? 'mine' : 'other'}`;
  const header = element.appendChild(document.createElement('header'));
  header.textContent = mine ? say('web.you', { name: entry.author.name }) : entry.author.name;
  if (entry.replyTo) {
    const quote = element.appendChild(document.createElement('blockquote'));
    quote.className = 'reply';
    quote.textContent = `↪ ${entry.replyTo.author}: ${entry.replyTo.snippet}`;
  }
  const body = element.appendChild(document.createElement('div'));
  if (entry.author.isBot) {
    body.className = 'body';
    // Rendered by the server with markdown-it (html: false, safe links only), never raw model output.
    body.innerHTML = entry.html ?? '';
  } else {
    body.className = 'body plain';
    body.textContent = entry.text;
  }
  if (entry.attachments?.length) element.appendChild(attachmentsElement(entry.attachments));
  for (const row of entry.buttons) {
    const bar = element.appendChild(document.createElement('div'));
    bar.className = 'buttons';
    for (const button of row) {
      const control = bar.appendChild(document.createElement('button'));
      control.type = 'button';
      control.textContent = button.label;
      if (button.style) control.className = button.style;
      control.addEventListener('click', () => void press(entry.id, button.payload));
    }
  }
  return element;
}

function activityElement(entry) {
  const element = document.createElement('div');
  element.className = `activity ${entry.state}`;
  const label = entry.label.replace(/(…|\.\.\.)$/, '');
  element.textContent = entry.state === 'running' ? `⏳ ${label}…` : entry.state === 'done' ? `✓ ${label}` : `✗ ${label}`;
  return element;
}

async function press(messageId, payload) {
  const buttonsOf = () => shown.get(messageId)?.element.querySelectorAll('.buttons button') ?? [];
  for (const control of buttonsOf()) control.disabled = true;
  try {
    const result = await post('/api/actions', { name, room, messageId, payload });
    if (result.toast) showToast(result.toast);
  } catch (error) {
    showToast(error.message, true);
  } finally {
    // A refused click changes nothing, so the buttons stay usable; a decision removed them already.
    for (const control of buttonsOf()) control.disabled = false;
  }
}

// ---- small UI pieces ------------------------------------------------------------------------

let toastTimer;
function showToast(text, isError = false) {
  const toast = byId('toast');
  toast.textContent = text;
  toast.className = isError ? 'toast error' : 'toast';
  toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (toast.hidden = true), 5000);
}

function showBanner(text) {
  const banner = byId('banner');
  banner.textContent = text;
  banner.hidden = false;
}

let typingTimer;
function showTyping(who) {
  const status = byId('status');
  status.textContent = say('web.typing', { name: who });
  status.hidden = false;
  clearTimeout(typingTimer);
  typingTimer = setTimeout(hideTyping, 6000);
}

function hideTyping() {
  clearTimeout(typingTimer);
  byId('status').hidden = true;
}

function showYou(you, sections = []) {
  nameInput.title = say('web.browserId', { id: you.id });
  byId('admin-badge').hidden = !you.admin;
  // The admin sections (names from the server's catalogue), for admins only.
  const nav = byId('admin-nav');
  nav.replaceChildren(
    ...(you.admin ? sections : []).map(({ href, label }) => {
      const link = document.createElement('a');
      link.href = href;
      link.textContent = label;
      return link;
    }),
  );
  nav.hidden = nav.childElementCount === 0;
}

function setBotName(value) {
  botName = value;
  byId('bot-name').textContent = botName;
  for (const element of document.querySelectorAll('[data-bot]')) element.textContent = say(element.dataset.text, { bot: botName });
  document.title = say('web.title', { bot: botName });
  byId('chat-label').textContent = room ? say('web.chatRoom', { room, bot: botName }) : say('web.chatDirect');
  box.placeholder = room ? say('web.placeholderRoom', { bot: botName }) : say('web.placeholderDirect', { bot: botName });
}

// ---- controls ------------------------------------------------------------------------------

nameInput.value = name;
nameInput.addEventListener('input', () => {
  const value = nameInput.value.trim().slice(0, 40);
  if (!value) return;
  name = value;
  sessionStorage.setItem('parley.name', value);
});
nameInput.addEventListener('change', () => {
  nameInput.value = name;
});

async function submit() {
  const text = box.value;
  if (!text.trim() && !hasAttachments()) return;
  const attachments = readyAttachments();
  if (attachments === undefined) {
    showToast('A file is still uploading; send again in a moment.');
    return;
  }
  const send = byId('send');
  send.disabled = true;
  try {
    await sendText(text, attachments);
    box.value = '';
    clearAttachments();
  } catch (error) {
    showToast(error.message, true);
  } finally {
    send.disabled = false;
    box.focus();
  }
}

byId('composer').addEventListener('submit', (event) => {
  event.preventDefault();
  void submit();
});
box.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    void submit();
  }
});
for (const [id, command] of [
  ['stop', '/stop'],
  ['reset', '/reset'],
]) {
  byId(id).addEventListener('click', () => void sendText(command).catch((error) => showToast(error.message, true)));
}

setUpUploads(box, (message) => showToast(message, true), say);
setBotName(botName);
void loadTexts();
connect();
