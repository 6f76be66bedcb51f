// Files for the next message: dropped on the page, pasted into the message box, or picked with the
// Attach button. Each is uploaded at once (POST /api/uploads, the raw bytes as
// application/octet-stream, its name and type in headers) and shown in the tray above the box;
// the message then names their ids. The server enforces the size cap; the page only says it early.

const tray = document.getElementById('tray');
const picker = document.getElementById('file');
/** id → { name } of uploaded files waiting for the next message. */
const ready = new Map();
let pending = 0;
let onError = (message) => console.error(message);
/** The page's words (app.js's say): key and placeholders → text. */
let say = (key) => key;

function sizeText(bytes) {
  if (bytes < 1_000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${Math.round(bytes / 1_000)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

function chip(label) {
  const element = tray.appendChild(document.createElement('span'));
  element.className = 'chip';
  element.textContent = label;
  tray.hidden = false;
  return element;
}

async function upload(file) {
  const element = chip(say('web.uploading', { name: file.name || say('web.pastedFile') }));
  pending++;
  try {
    const response = await fetch('/api/uploads', {
      method: 'POST',
      headers: {
        'content-type': 'application/octet-stream',
        'x-file-name': encodeURIComponent(file.name || 'pasted-file'),
        'x-file-type': file.type || 'application/octet-stream',
      },
      body: file,
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.error || say('web.answered', { status: response.status }));
    ready.set(data.id, data);
    element.textContent = `${data.name} · ${sizeText(data.size)} `;
    const remove = element.appendChild(document.createElement('button'));
    remove.type = 'button';
    remove.textContent = '×';
    remove.title = say('web.removeFile');
    remove.addEventListener('click', () => {
      ready.delete(data.id);
      element.remove();
      tray.hidden = tray.childElementCount === 0;
    });
  } catch (error) {
    element.remove();
    tray.hidden = tray.childElementCount === 0;
    onError(`${file.name || say('web.pastedFile')}: ${error.message}`);
  } finally {
    pending--;
  }
}

function uploadAll(files) {
  for (const file of files) void upload(file);
}

/** Wires drag and drop, paste and the Attach button; `report` shows an error to the person. */
export function setUpUploads(box, report, words) {
  onError = report;
  say = words;
  document.getElementById('attach').addEventListener('click', () => picker.click());
  picker.addEventListener('change', () => {
    uploadAll([...picker.files]);
    picker.value = '';
  });
  box.addEventListener('paste', (event) => {
    const files = [...(event.clipboardData?.files ?? [])];
    if (files.length === 0) return;
    event.preventDefault();
    uploadAll(files);
  });
  document.addEventListener('dragover', (event) => {
    if ([...(event.dataTransfer?.types ?? [])].includes('Files')) event.preventDefault();
  });
  document.addEventListener('drop', (event) => {
    const files = [...(event.dataTransfer?.files ?? [])];
    if (files.length === 0) return;
    event.preventDefault();
    uploadAll(files);
  });
}

/** Ids for the message being sent; undefined while one is still uploading. */
export function readyAttachments() {
  return pending > 0 ? undefined : [...ready.keys()];
}

/** The message went out: the tray starts empty again. */
export function clearAttachments() {
  ready.clear();
  tray.replaceChildren();
  tray.hidden = true;
}

export function hasAttachments() {
  return ready.size > 0 || pending > 0;
}

/** The files of a transcript entry: images as pictures (from the server), others by name. */
export function attachmentsElement(attachments) {
  const list = document.createElement('div');
  list.className = 'attachments';
  for (const file of attachments) {
    if (file.kind === 'image') {
      const image = list.appendChild(document.createElement('img'));
      image.src = `/api/uploads/${encodeURIComponent(file.id)}`;
      image.alt = file.name;
      image.title = `${file.name} · ${sizeText(file.size)}`;
    } else {
      const item = list.appendChild(document.createElement('span'));
      item.className = 'chip';
      item.textContent = `📎 ${file.name} · ${sizeText(file.size)}`;
    }
  }
  return list;
}
