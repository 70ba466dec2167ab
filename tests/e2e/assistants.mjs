// Assistants in the real Switchboard window, under Xvfb, through tauri-driver + WebKitWebDriver.
// A scripted OpenAI-compatible model on 127.0.0.1 (one model listed, no default model set, so
// the app must choose it) records every request. In the window: Settings → Assistants → New
// assistant with a system prompt and a temperature; a new chat started from it; the fake model
// must receive that system prompt and temperature, and the chat shows the assistant it started
// from. Screenshots: docs/screenshots/assistant-editor.png, chat-settings.png, servers.png,
// providers.png.
//
// Usage: node tests/e2e/assistants.mjs <path to the debug binary>   (DISPLAY must be set)
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import http from 'node:http';
import { driver, freePort, runScenario, sleep, until } from './webdriver.mjs';

const app = resolve(process.argv[2] ?? '');
const root = resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-assistants-'));
const children = [];
const PROMPT = 'Answer like a pirate, 海盗 style.';
const TAB = '\uE004';
const ENTER = '\uE007';
/** Every chat request body the fake model got (title requests left out). */
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
      const last = (body.messages ?? []).at(-1)?.content ?? '';
      if (typeof last === 'string' && last.startsWith('Write a short title')) return sse(res, 'Pirate talk');
      requests.push(body);
      return sse(res, 'Arr, ahoy!');
    });
  });
  server.on('connection', (s) => s.setNoDelay(true));
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

function cli(...args) {
  return execFileSync(app, ['--data-dir', dataDir, ...args], { encoding: 'utf8', env: { ...process.env, SWITCHBOARD_DATA_DIR: dataDir } });
}

function screenshot(name) {
  mkdirSync(join(root, 'docs/screenshots'), { recursive: true });
  const shot = join(root, `docs/screenshots/${name}.png`);
  execFileSync('import', ['-window', 'root', shot]);
  const colours = Number(execFileSync('identify', ['-format', '%k', shot]).toString());
  if (!(colours > 64)) throw new Error(`the screenshot is blank (${colours} colours): ${shot}`);
  console.log(`e2e-assistants: screenshot ${shot} (${colours} colours)`);
}

/** Clicks through the page's own `click()` (a toast or a tooltip over the element would make
 * WebDriver's click "intercepted"); fails on an error banner, naming it. */
async function press(wd, id) {
  await wd.script('arguments[0].scrollIntoView({block: "center"}); arguments[0].click(); return true;', [{ [wd.ELEMENT]: id }]);
  const banners = await wd.findAll('[data-testid="error-banner"]');
  for (const b of banners) throw new Error(`the window shows an error: ${await wd.text(b)}`);
}

/** Goes to a route of the window (hash routing). */
const go = (wd, hash) => wd.script(`location.hash = arguments[0]; return true;`, [hash]);

async function makeAssistant(wd) {
  await go(wd, '#/settings/assistants');
  await press(wd, await until('the New assistant button', () => wd.find('[data-testid="assistant-new"]')));
  const name = await until('the editor', () => wd.find('[data-testid="assistant-name"]'));
  await wd.type(name, 'Pirate');
  await wd.type(await wd.find('[data-testid="system-prompt"]'), PROMPT + TAB);
  await wd.type(await wd.find('[data-testid="setting-temperature"]'), '0.7' + TAB);
  await wd.type(await wd.find('[data-testid="setting-maxOutputTokens"]'), '512' + TAB);
  await sleep(400);
  screenshot('assistant-editor');
  await press(wd, await wd.find('[data-testid="assistant-save"]'));
  const row = await until('the assistant in the list', async () => {
    for (const r of await wd.findAll('[data-testid="assistant-row"]')) if ((await wd.text(r)).includes('Pirate')) return r;
  });
  console.log('e2e-assistants: the assistant "Pirate" was made in Settings → Assistants');
  return row;
}

async function chatFromIt(wd) {
  await go(wd, '#/');
  const picker = await until('the assistant picker of a new chat', () => wd.find('[data-testid="new-chat-assistant"]'));
  const options = await wd.findAll('[data-testid="new-chat-assistant"] option');
  let chosen = false;
  for (const o of options) {
    if ((await wd.text(o)).includes('Pirate')) {
      await wd.script('arguments[0].value = arguments[1].value; arguments[0].dispatchEvent(new Event("change", { bubbles: true })); return true;', [{ [wd.ELEMENT]: picker }, { [wd.ELEMENT]: o }]);
      chosen = true;
    }
  }
  if (!chosen) throw new Error('the picker does not offer the assistant');
  const line = await until('the model line', async () => {
    const t = await wd.text(await wd.find('[data-testid="new-chat-model"]'));
    return t.includes('fake-model') ? t : undefined;
  });
  console.log(`e2e-assistants: before the first message the new chat says "${line.trim()}"`);
  await wd.type(await wd.find('[data-testid="composer"]'), 'Hello there' + ENTER);
  const body = await until('the model request', () => requests[0], 30000);
  const system = body.messages?.[0];
  if (system?.role !== 'system' || system.content !== PROMPT) throw new Error(`the model got no system prompt: ${JSON.stringify(body.messages?.[0])}`);
  if (body.temperature !== 0.7) throw new Error(`the model got temperature ${body.temperature}`);
  if (body.model !== 'fake-model') throw new Error(`the model got model ${body.model}`);
  if (body.max_tokens !== 512 && body.max_completion_tokens !== 512) throw new Error(`no max tokens: ${JSON.stringify(body).slice(0, 300)}`);
  console.log('e2e-assistants: the fake model received the assistant\'s system prompt, temperature 0.7 and max tokens 512');
  const badge = await until('the assistant on the chat bar', () => wd.find('[data-testid="chat-assistant"]'));
  if (!(await wd.text(badge)).includes('Pirate')) throw new Error('the chat does not show its assistant');
  await until('the answer', async () => (await wd.text(await wd.find('main'))).includes('Arr, ahoy!'));
  await press(wd, await wd.find('[data-testid="chat-settings-button"]'));
  await until('the chat settings panel', () => wd.find('[data-testid="settings-panel"]'));
  await sleep(400);
  screenshot('chat-settings');
}

async function settingsShots(wd) {
  await go(wd, '#/settings/servers');
  await until('the server list', async () => (await wd.findAll('[data-testid="server-row"]')).length > 0);
  await sleep(1500);
  screenshot('servers');
  await go(wd, '#/settings/providers');
  await until('the provider card', async () => (await wd.findAll('[data-testid="provider-card"]')).length > 0);
  await sleep(400);
  screenshot('providers');
}

async function main() {
  const model = await fakeModel();
  children.push({ kill: () => model.close() });
  const url = `http://127.0.0.1:${model.address().port}`;
  cli('providers', 'add', 'fake', '--preset', 'openai-compatible', '--base-url', `${url}/v1`);
  const servers = join(dataDir, 'servers.json');
  writeFileSync(servers, JSON.stringify({ mcpServers: { clock: { builtin: 'time' }, web: { builtin: 'fetch' } } }));
  cli('servers', 'import', servers);

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
    await until('the sidebar', () => wd.find('[data-testid="new-conversation"]'));
    await makeAssistant(wd);
    await chatFromIt(wd);
    await settingsShots(wd);
  } finally {
    await wd.end().catch(() => {});
  }
}

await runScenario('e2e-assistants', main, children, dataDir);
