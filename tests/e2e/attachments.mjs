// Attached images and files in the real Switchboard window, under Xvfb, through tauri-driver +
// WebKitWebDriver. A scripted OpenAI-compatible model on 127.0.0.1 records every request.
//  - an image (a PNG drawn by ImageMagick) is pasted into the composer: its thumbnail shows
//    before sending, then in the sent message; the model receives it as an `image_url` part
//    (a base64 `data:image/png` URL);
//  - a PDF written by this test, holding a known sentence, is pasted too: its chip shows its
//    token count, and the model receives the sentence in the message's text;
//  - the image is stored once (one `blobs` row) and the message names it by hash;
//  - deleting the answer asks first and removes it.
// A screenshot of the message with its image goes to docs/screenshots/image-message.png.
//
// Usage: node tests/e2e/attachments.mjs <path to the debug binary>   (DISPLAY must be set)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { newChat, sleep, testRun, until } from './lib.mjs';

const { dataDir, cli, sqlite, screenshot, launch, fakeModel, run } = testRun('e2e-attachments');
const SENTENCE = 'The lighthouse keeper counted forty-two herons at dawn.';
/** Chat request bodies the fake model received. */
const requests = [];

/** The fake model's answers: a title when not streamed, else what it saw. */
function answer(body) {
  requests.push(body);
  return body.stream === false ? 'Title' : 'I see a gradient, and the PDF talks about herons.';
}

/** A one-page PDF showing `line` in Helvetica, with a correct cross-reference table. */
function pdfWith(line) {
  const text = line.replace(/[\\()]/g, (c) => `\\${c}`);
  const stream = `BT /F1 14 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A 900×600 gradient PNG drawn by ImageMagick. */
function png() {
  const file = join(dataDir, 'gradient.png');
  execFileSync('convert', ['-size', '900x600', 'gradient:#1e90ff-#ffd700', file]);
  return readFileSync(file);
}

/** Pastes a file into the composer as the clipboard would: a `paste` event whose clipboard data
 * holds the file (a stand-in object: WebKitWebDriver cannot fill the real clipboard). */
async function paste(wd, name, type, bytes) {
  await wd.script(
    `const [name, type, b64] = arguments;
     const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
     const data = { files: [new File([bytes], name, { type })], items: [] };
     const event = new Event('paste', { bubbles: true, cancelable: true });
     Object.defineProperty(event, 'clipboardData', { value: data });
     document.querySelector('[data-testid="composer"]').dispatchEvent(event);`,
    [name, type, bytes.toString('base64')],
  );
}

async function scenario(wd) {
  const composer = await newChat(wd, 'Images and files');

  await paste(wd, 'gradient.png', 'image/png', png());
  await until('the image thumbnail in the composer', () => wd.find('[data-testid="upload-thumbnail"]'), 30000);
  await paste(wd, 'herons.pdf', 'application/pdf', pdfWith(SENTENCE));
  const tokens = await until('the PDF chip with its token count', async () => {
    const t = await wd.text(await wd.find('[data-testid="upload-tokens"]'));
    return /\d/.test(t) ? t.trim() : null;
  });
  console.log(`e2e-attachments: the PDF chip shows ${tokens}`);

  await wd.type(composer, 'What is in the picture and the PDF?\uE007');
  await until('the answer', async () => {
    const texts = await wd.findAll('[data-testid="message"][data-role="assistant"][data-status="complete"]');
    return texts.length > 0;
  }, 60000);
  await until('the sent message to show its image', () => wd.find('[data-testid="message"][data-role="user"] [data-testid="message-thumbnail"]'));

  const chat = requests.find((b) => Array.isArray(b.messages) && b.messages.some((m) => m.role === 'user' && Array.isArray(m.content)));
  if (!chat) throw new Error(`no request carried a multi-part user message: ${JSON.stringify(requests).slice(0, 800)}`);
  const user = chat.messages.filter((m) => m.role === 'user').at(-1);
  const image = user.content.find((p) => p.type === 'image_url');
  if (!image?.image_url?.url?.startsWith('data:image/png;base64,')) {
    throw new Error(`the model got no PNG image part: ${JSON.stringify(user.content).slice(0, 400)}`);
  }
  const text = user.content.filter((p) => p.type === 'text').map((p) => p.text).join('\n');
  if (!text.includes(SENTENCE)) throw new Error(`the model did not get the PDF's sentence: ${text.slice(0, 600)}`);
  if (!text.includes('File: herons.pdf')) throw new Error(`the PDF is not named for the model: ${text.slice(0, 300)}`);
  console.log(`e2e-attachments: the model received the image (${image.image_url.url.length} chars) and the PDF's sentence`);

  const blobs = sqlite('SELECT hash, width, height FROM blobs');
  if (blobs.length !== 1) throw new Error(`expected one stored image, found ${JSON.stringify(blobs)}`);
  const named = sqlite(`SELECT COUNT(*) FROM messages WHERE instr(content, '${blobs[0][0]}') > 0`)[0][0];
  if (named !== 1) throw new Error(`the image's hash is named by ${named} messages`);

  await sleep(800);
  screenshot('image-message');

  // Deleting the answer asks first, then removes it.
  const answer = await wd.find('[data-testid="message"][data-role="assistant"] [data-testid="delete-message"]');
  await wd.click(answer);
  const explanation = await wd.text(await until('the delete question', () => wd.find('[data-testid="delete-explanation"]')));
  await wd.click(await wd.find('[data-testid="delete-confirm"]'));
  await until('the answer to be gone', async () => (await wd.findAll('[data-testid="message"][data-role="assistant"]')).length === 0);
  console.log(`e2e-attachments: deleted the answer after "${explanation.trim()}"`);
}

async function main() {
  const { url: modelUrl } = await fakeModel(answer);
  cli('providers', 'add', 'fake', '--preset', 'openai-compatible', '--base-url', `${modelUrl}/v1`);
  sqlite(`UPDATE providers SET settings = json_set(settings, '$.defaultModel', 'fake-model')`);
  sqlite(`INSERT INTO settings (key, value) VALUES ('chat.auto_title', 'false') ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
  const wd = await launch();
  try {
    await scenario(wd);
  } catch (e) {
    const html = await wd.script('return document.body.innerText').catch(() => '');
    console.error(`e2e-attachments: the window showed:\n${String(html).slice(-3000)}`);
    throw e;
  } finally {
    await wd.end().catch(() => {});
  }
}

await run(main);
