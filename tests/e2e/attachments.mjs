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
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import http from 'node:http';
import { driver, freePort, runScenario, sleep, until } from './webdriver.mjs';

const app = resolve(process.argv[2] ?? '');
const root = resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-attach-'));
const children = [];
const SENTENCE = 'The lighthouse keeper counted forty-two herons at dawn.';
/** Chat request bodies the fake model received. */
const requests = [];

function sse(res, text) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunk = (delta, finish) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'fake-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  res.write(chunk({ role: 'assistant', content: text }, null));
  res.write(chunk({}, 'stop'));
  res.end('data: [DONE]\n\n');
}

function fakeModel() {
  const server = http.createServer((req, res) => {
    req.setEncoding('utf8');
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      if (req.url.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model' }] }));
      }
      const body = JSON.parse(raw || '{}');
      requests.push(body);
      sse(res, body.stream === false ? 'Title' : 'I see a gradient, and the PDF talks about herons.');
    });
  });
  server.on('connection', (s) => s.setNoDelay(true));
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

function cli(...args) {
  return execFileSync(app, ['--data-dir', dataDir, ...args], { encoding: 'utf8', env: { ...process.env, SWITCHBOARD_DATA_DIR: dataDir } });
}

function sqlite(query) {
  const py = `import sqlite3,sys,json\nc=sqlite3.connect(sys.argv[1])\nr=c.execute(sys.argv[2]).fetchall()\nc.commit()\nprint(json.dumps(r))`;
  return JSON.parse(execFileSync('python3', ['-c', py, join(dataDir, 'switchboard.db'), query]));
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

function screenshot(name) {
  mkdirSync(join(root, 'docs/screenshots'), { recursive: true });
  const shot = join(root, `docs/screenshots/${name}.png`);
  execFileSync('import', ['-window', 'root', shot]);
  const colours = Number(execFileSync('identify', ['-format', '%k', shot]).toString());
  if (!(colours > 64)) throw new Error(`the screenshot is blank (${colours} colours): ${shot}`);
  console.log(`e2e-attachments: screenshot ${shot} (${colours} colours)`);
}

async function scenario(wd) {
  await wd.click(await until('the new-chat button', () => wd.find('[data-testid="new-conversation"]')));
  const rename = await until('the rename input', () => wd.find('[data-testid="rename-input"]'));
  await wd.type(rename, 'Images and files\uE007');
  const composer = await until('the composer', () => wd.find('[data-testid="composer"]'));

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
  const model = await fakeModel();
  children.push({ kill: () => model.close() });
  const modelUrl = `http://127.0.0.1:${model.address().port}`;
  cli('providers', 'add', 'fake', '--preset', 'openai-compatible', '--base-url', `${modelUrl}/v1`);
  sqlite(`UPDATE providers SET settings = json_set(settings, '$.defaultModel', 'fake-model')`);
  sqlite(`INSERT INTO settings (key, value) VALUES ('chat.auto_title', 'false') ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
  const port = await freePort();
  const nativePort = await freePort();
  const td = spawn('tauri-driver', ['--port', String(port), '--native-port', String(nativePort)], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, SWITCHBOARD_DATA_DIR: dataDir, WEBKIT_DISABLE_COMPOSITING_MODE: '1' },
  });
  children.push(td);
  const wd = driver(`http://127.0.0.1:${port}`);
  await until('tauri-driver', async () => (await fetch(`http://127.0.0.1:${port}/status`)).ok);
  await wd.start({ alwaysMatch: { 'tauri:options': { application: app, args: ['--data-dir', dataDir] } } });
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

await runScenario('e2e-attachments', main, children, dataDir);
