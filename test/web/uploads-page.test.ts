// Uploads in real Chromium: a file picked with Attach, one dropped on the page and one pasted into
// the message box all land in the tray, go with the next message, and the transcript shows the
// picture (loaded from the console under its CSP) and the other files by name.
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JPEG, PDF, PNG } from '../helpers/media-fixtures.ts';
import { waitFor } from '../helpers/harness.ts';
import { imagesOfLastUser, lastUser } from '../helpers/media-turns.ts';
import { closeConsoles, launchBrowser, openChat, startConsole } from './console.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(closeConsoles);

describe('web console page: attaching files', () => {
  it('pick, drop and paste: three files go with one message and show in the transcript', async () => {
    const web = await startConsole();
    web.harness.model.enqueue({ text: 'Three files, thanks.' });
    const context = await browser.newContext();
    try {
      const page = await openChat(context, web.url, { name: 'Alice' });
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      await page.setInputFiles('#file', { name: 'error.png', mimeType: 'image/png', buffer: PNG.bytes });
      // Run in the page (a string: this file is compiled without the DOM library).
      const give = (how: 'drop' | 'paste', name: string, type: string, bytes: Buffer) =>
        page.evaluate(`(() => {
          const transfer = new DataTransfer();
          transfer.items.add(new File([new Uint8Array(${JSON.stringify([...bytes])})], ${JSON.stringify(name)}, { type: ${JSON.stringify(type)} }));
          const init = { bubbles: true, cancelable: true };
          if (${JSON.stringify(how)} === 'drop') document.body.dispatchEvent(new DragEvent('drop', { ...init, dataTransfer: transfer }));
          else document.getElementById('text').dispatchEvent(new ClipboardEvent('paste', { ...init, clipboardData: transfer }));
        })()`);
      await give('drop', 'report.pdf', 'application/pdf', PDF.bytes);
      await give('paste', 'photo.jpg', 'image/jpeg', JPEG.bytes);
      await page.locator('#tray .chip button').nth(2).waitFor();
      expect(await page.locator('#tray .chip').allTextContents()).toEqual(
        expect.arrayContaining([
          expect.stringContaining('error.png'),
          expect.stringContaining('report.pdf'),
          expect.stringContaining('photo.jpg'),
        ]),
      );

      await page.fill('#text', 'what do these say?');
      await page.click('#send');
      const mine = page.locator('.msg.mine', { hasText: 'what do these say?' });
      await mine.waitFor();
      await page.locator('#tray').waitFor({ state: 'hidden' });
      const pictures = mine.locator('.attachments img');
      expect(await pictures.count()).toBe(2);
      // Polled from the test (page.waitForFunction evaluates a string inside the page, which the
      // console's CSP refuses as eval whenever the first check fails and it has to poll).
      await expect
        .poll(() =>
          page
            .locator('.msg.mine .attachments img')
            .evaluateAll((images) => images.every((img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0)),
        )
        .toBe(true);
      expect(await mine.locator('.attachments .chip').textContent()).toContain('report.pdf');
      await page.locator('.msg.bot', { hasText: 'Three files, thanks.' }).waitFor();
      await waitFor(() => web.harness.model.requests.length === 1 || undefined, 'one model turn');
      // The two pictures went to the model as images, the PDF as its text.
      const request = web.harness.model.requests[0]!;
      // (in the order the uploads finished, which may vary)
      expect((await imagesOfLastUser(request)).sort()).toEqual(['image/jpeg 2048x1365', 'image/jpeg 640x360']);
      expect(lastUser(request).content).toContain('Quarterly report: revenue grew 12 percent.');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
