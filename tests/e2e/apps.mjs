// MCP Apps in the real Switchboard window, under Xvfb, through tauri-driver + WebKitWebDriver.
// A scripted OpenAI-compatible model on 127.0.0.1 asks for one App tool per conversation; each
// App (the npm App servers, and our hostile App) must render in its tool card's sandboxed frame.
//  - basic-vanillajs: its "Get Server Time" button calls get-time back through the host
//    (the user allows it in the card) and shows the answer;
//  - system-monitor: polls its app-only tool poll-system-stats and fills its memory gauge;
//  - budget-allocator: renders its chart from the tool result;
//  - hostile: every escape attempt is blocked (its own report, through the host's App log),
//    the host logs the refusals and the flood, the window stays on its page, the IPC message
//    handler created no conversation, and the window still answers clicks.
// Reopening the first conversation renders its App again (from history). A screenshot of each
// App goes to docs/screenshots/app-*.png. Last, a model that reasons before it calls
// server-everything's `echo`: the reasoning block and the tool card with its result, shown in
// docs/screenshots/reasoning-tool-card.png.
//
// Usage: node tests/e2e/apps.mjs <path to the debug binary>   (DISPLAY must be set)
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import http from 'node:http';
import { driver, freePort, runScenario, sleep, until } from './webdriver.mjs';

const app = resolve(process.argv[2] ?? '');
const root = resolve(import.meta.dirname, '../..');
const fixtures = join(root, 'tests/fixtures/mcp-apps');
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-apps-'));
const children = [];
// The scripted model: a user message naming an App asks for that App's tool; after a tool
// result it answers in text. Tool names are taken from the request (provider-safe names).
let modelUrl = '';
/** Requests a web page (an App frame) got through to the fake model; must stay empty. */
const framesReached = [];
const SCRIPT = {
  basic: 'get-time',
  monitor: 'get-system-info',
  budget: 'get-budget-data',
  hostile: 'hostile-view',
};

function sse(res, deltas, finish) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const delta of deltas) {
    res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'fake-model', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
  }
  res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'fake-model', choices: [{ index: 0, delta: {}, finish_reason: finish }] })}\n\n`);
  res.end('data: [DONE]\n\n');
}

const ECHOED = 'Hello from Switchboard — 你好 👋';

function answer(body, res) {
  const messages = body.messages ?? [];
  const last = messages.at(-1) ?? {};
  const text = typeof last.content === 'string' ? last.content : JSON.stringify(last.content ?? '');
  const tools = (body.tools ?? []).map((t) => t.function?.name ?? '');
  const echo = tools.find((n) => n.startsWith('everything__') && n.endsWith('echo'));
  if (last.role === 'user' && text.includes('think, then echo') && echo) {
    const call = { index: 0, id: 'call_echo', type: 'function', function: { name: echo, arguments: JSON.stringify({ message: ECHOED }) } };
    return sse(res, [
      { role: 'assistant', reasoning_content: 'The user wants a greeting sent through a tool. ' },
      { reasoning_content: 'server-everything has **echo**, which returns its message unchanged, so I will call it with a bilingual greeting and report what comes back.' },
      { content: '', tool_calls: [call] },
    ], 'tool_calls');
  }
  if (last.role === 'tool' && last.tool_call_id === 'call_echo') {
    return sse(res, [{ role: 'assistant', content: `The server echoed the greeting back unchanged:\n\n> ${ECHOED}` }], 'stop');
  }
  const wanted = Object.entries(SCRIPT).find(([server]) => last.role === 'user' && text.includes(`show ${server}`));
  const name = wanted && tools.find((n) => n.startsWith(`${wanted[0]}__`) && n.endsWith(wanted[1]));
  if (name) {
    // The hostile App is given a URL that is reachable but outside its CSP: this server's.
    const args = wanted[0] === 'hostile' ? { probe: `${modelUrl}/v1/models` } : {};
    const call = { index: 0, id: `call_${wanted[0]}`, type: 'function', function: { name, arguments: JSON.stringify(args) } };
    return sse(res, [{ role: 'assistant', content: '', tool_calls: [call] }], 'tool_calls');
  }
  const reply = last.role === 'tool' ? 'Here is the App.' : 'MCP Apps';
  return sse(res, [{ role: 'assistant', content: reply }], 'stop');
}

function fakeModel() {
  const server = http.createServer((req, res) => {
    req.setEncoding('utf8');
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      if (req.headers.origin) framesReached.push(`${req.method} ${req.url} from ${req.headers.origin}`);
      if (process.env.E2E_APPS_DEBUG) console.log(`fake model: ${req.method} ${req.url} ${raw.slice(0, 400)}`);
      if (req.url.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model' }] }));
      }
      try {
        answer(JSON.parse(raw || '{}'), res);
      } catch (e) {
        res.writeHead(400);
        res.end(String(e));
      }
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

function configure(modelUrl) {
  cli('providers', 'add', 'fake', '--preset', 'openai-compatible', '--base-url', `${modelUrl}/v1`);
  sqlite(`UPDATE providers SET settings = json_set(settings, '$.defaultModel', 'fake-model')`);
  const npm = (pkg) => ({ command: 'node', args: [join(fixtures, `node_modules/@modelcontextprotocol/${pkg}/dist/index.js`), '--stdio'], approval: 'allow' });
  const mcpServers = {
    basic: npm('server-basic-vanillajs'),
    monitor: npm('server-system-monitor'),
    budget: npm('server-budget-allocator'),
    hostile: { command: 'node', args: [join(fixtures, 'hostile-app.mjs')], approval: 'allow' },
    everything: { command: 'node', args: [join(root, 'tests/fixtures/mcp-node/node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'] },
  };
  const file = join(dataDir, 'servers.json');
  writeFileSync(file, JSON.stringify({ mcpServers }));
  cli('servers', 'import', file);
}

function screenshot(name) {
  mkdirSync(join(root, 'docs/screenshots'), { recursive: true });
  const shot = join(root, `docs/screenshots/${name}.png`);
  execFileSync('import', ['-window', 'root', shot]);
  const colours = Number(execFileSync('identify', ['-format', '%k', shot]).toString());
  if (!(colours > 64)) throw new Error(`the screenshot is blank (${colours} colours): ${shot}`);
  console.log(`e2e-apps: screenshot ${shot} (${colours} colours)`);
}

const lastApp = '[data-testid="mcp-app"]:last-of-type';

/** Starts a conversation, asks for server's App and waits for its frame. */
async function chatFor(wd, server) {
  await wd.click(await wd.find('[data-testid="new-conversation"]'));
  const rename = await until('the rename input', () => wd.find('[data-testid="rename-input"]'));
  await wd.type(rename, `App: ${server}\uE007`);
  const composer = await until('the composer', () => wd.find('[data-testid="composer"]'));
  await wd.type(composer, `show ${server}\uE007`);
  // The model's call of an unannotated tool asks first: allow it once.
  const allowOnce = '[data-testid="tool-call-card"] > [data-testid="approval-buttons"] [data-decision="allow_once"]';
  await wd.click(await until(`the approval of the ${server} tool`, () => wd.find(allowOnce)));
  const frame = await until(`the ${server} App frame`, async () => {
    const frames = await wd.findAll(`[data-testid="mcp-app"][data-server="${server}"] [data-testid="mcp-app-frame"]`);
    return frames[0];
  }, 60000);
  await wd.script('arguments[0].scrollIntoView({block: "center"})', [{ [wd.ELEMENT]: frame }]);
  return frame;
}

/** Runs `fn` inside the App frame, back to the window after. */
async function inFrame(wd, frame, fn) {
  await wd.frame(frame);
  try {
    return await fn();
  } finally {
    await wd.top();
  }
}

/** Allows the App's pending tool call for this chat, if the card asks. */
async function allowInCard(wd, server) {
  const selector = `[data-testid="mcp-app"][data-server="${server}"] [data-decision="allow_for_chat"]`;
  await until(`the approval asked by the ${server} App`, () => wd.find(selector));
  // Clicked until the question is gone: a click that lands while the card re-renders is lost.
  await until(`the ${server} App's approval to be answered`, async () => {
    const button = await wd.find(selector).catch(() => null);
    if (!button) return true;
    await wd.click(button).catch(() => undefined);
    return false;
  });
}

const frameText = (wd, css) => wd.script(`const e = document.querySelector(${JSON.stringify(css)}); return e ? e.textContent : null`);

async function basic(wd) {
  const frame = await chatFor(wd, 'basic');
  const before = await until('the basic App to show the tool result', () =>
    inFrame(wd, frame, async () => {
      const t = await frameText(wd, '#server-time');
      return t && /\d{4}-\d\d-\d\dT/.test(t) ? t : null;
    }),
  );
  await sleep(1100);
  await inFrame(wd, frame, async () => wd.click(await wd.find('#get-time-btn')));
  await allowInCard(wd, 'basic');
  const after = await until('the server time fetched by the App', () =>
    inFrame(wd, frame, async () => {
      const t = await frameText(wd, '#server-time');
      return t && t !== before && /\d{4}-\d\d-\d\dT/.test(t) ? t : null;
    }),
  );
  console.log(`e2e-apps: basic App rendered ${before}, called get-time back: ${after}`);
  await sleep(500);
  screenshot('app-basic');
}

async function monitor(wd) {
  const frame = await chatFor(wd, 'monitor');
  await allowInCard(wd, 'monitor');
  const memory = await until('the memory gauge filled by poll-system-stats', () =>
    inFrame(wd, frame, async () => {
      const t = await frameText(wd, '#memory-percent');
      return t && /\d+%/.test(t) ? t : null;
    }),
  );
  console.log(`e2e-apps: system-monitor App polled its app-only tool: memory ${memory}`);
  await sleep(2500);
  screenshot('app-system-monitor');
}

async function budget(wd) {
  const frame = await chatFor(wd, 'budget');
  const canvases = await until('the budget chart', () =>
    inFrame(wd, frame, async () => {
      const n = await wd.script('return document.querySelectorAll("canvas").length');
      return n > 0 ? n : null;
    }),
  );
  console.log(`e2e-apps: budget-allocator App rendered (${canvases} charts)`);
  await sleep(1500);
  screenshot('app-budget-allocator');
}

async function hostile(wd) {
  const conversations = sqlite('SELECT count(*) FROM conversations')[0][0];
  const url = await wd.script('return location.origin + location.pathname');
  await chatFor(wd, 'hostile');
  const log = await until('the hostile App summary', async () => {
    const text = await wd.script(
      `const l = document.querySelector('[data-testid="mcp-app"][data-server="hostile"] [data-testid="mcp-app-log"]'); return l ? l.textContent : ''`,
    );
    return text.includes('"summary":true') ? text : null;
  }, 60000);
  const summary = JSON.parse(log.slice(log.indexOf('{"summary":true'), log.indexOf('}', log.indexOf('{"summary":true')) + 1).replace(/,"escaped":\[[^\]]*\]/, ''));
  const escaped = /"escaped":\[([^\]]*)\]/.exec(log)?.[1];
  // "host": the App cannot see the outcome (the IPC message handler); checked below.
  const attacks = [...log.matchAll(/\{"attack":"([a-z-]+)","blocked":(true|false|"host")/g)].map((m) => [m[1], m[2] === '"host"' ? 'true' : m[2]]);
  console.log(`e2e-apps: hostile attempts: ${attacks.map(([a, b]) => `${a}=${b === 'true' ? 'blocked' : 'ESCAPED'}`).join(', ')}`);
  if (attacks.length < 16 || !attacks.some(([a]) => a === 'fetch-reachable-outside-csp')) throw new Error(`only ${attacks.length} attempts were reported:\n${log}`);
  if (escaped !== '' || attacks.some(([, b]) => b !== 'true')) throw new Error(`the hostile App escaped: ${escaped}\n${log}`);
  if (!summary.responsive) throw new Error('the host stopped answering the App after its flood');
  for (const refusal of ['refused tools/call', 'refused ui/open-link', 'flood: dropped']) {
    if (!log.includes(refusal)) throw new Error(`the host did not log "${refusal}":\n${log}`);
  }
  if (framesReached.length) throw new Error(`an App reached the fake model: ${framesReached.join('; ')}`);
  if ((await wd.script('return location.origin + location.pathname')) !== url) throw new Error('the App navigated the window');
  const now = sqlite('SELECT count(*) FROM conversations')[0][0];
  if (now !== conversations + 1) throw new Error(`the IPC message handler ran a command: ${now} conversations, expected ${conversations + 1}`);
  // Still responsive: the log opens on a click and the next chat starts.
  await wd.click(await wd.find('[data-testid="mcp-app"][data-server="hostile"] [data-testid="mcp-app-log"] summary'));
  console.log('e2e-apps: the hostile App was contained; the host logged its refusals and the flood');
  await sleep(500);
  screenshot('app-hostile');
}

/** A model that reasons, then calls a plain tool: the reasoning block and the tool card. */
async function reasoning(wd) {
  await wd.click(await wd.find('[data-testid="new-conversation"]'));
  const rename = await until('the rename input', () => wd.find('[data-testid="rename-input"]'));
  await wd.type(rename, 'Reasoning and a tool\uE007');
  const composer = await until('the composer', () => wd.find('[data-testid="composer"]'));
  await wd.type(composer, 'Please think, then echo a greeting in English and Chinese.\uE007');
  // echo asks first unless the policy lets it run: allow it once when asked.
  const allowOnce = '[data-testid="tool-call-card"] > [data-testid="approval-buttons"] [data-decision="allow_once"]';
  await until('the answer after the echo', async () => {
    const button = await wd.find(allowOnce).catch(() => null);
    if (button) await wd.click(button).catch(() => undefined);
    return (await wd.script('return document.querySelector("[data-testid=messages]")?.innerText ?? ""')).includes('echoed the greeting back');
  }, 60000);
  const opened = await wd.script(`const d = document.querySelector('details.reasoning'); if (!d) return false; d.open = true; return true`);
  if (!opened) throw new Error('the reasoning block is not shown');
  const cards = await wd.findAll('[data-testid="tool-call-card"]');
  if (cards.length !== 1) throw new Error(`expected one tool card, saw ${cards.length}`);
  await sleep(600);
  screenshot('reasoning-tool-card');
  console.log('e2e-apps: reasoning block and echo tool card shown');
}

async function reopen(wd) {
  const rows = await wd.findAll('[data-testid="conversation-row"]');
  for (const r of rows) {
    const text = await wd.script('return arguments[0].textContent', [{ [wd.ELEMENT]: r }]);
    if (text.includes('App: basic')) {
      await wd.click(await wd.script('return arguments[0].querySelector("a") || arguments[0]', [{ [wd.ELEMENT]: r }]).then((e) => e[wd.ELEMENT]));
      break;
    }
  }
  const frame = await until('the basic App re-rendered from history', async () => (await wd.findAll('[data-testid="mcp-app"][data-server="basic"] [data-testid="mcp-app-frame"]'))[0]);
  const time = await until('the re-rendered App to show the stored result', () =>
    inFrame(wd, frame, async () => {
      const t = await frameText(wd, '#server-time');
      return t && /\d{4}-\d\d-\d\dT/.test(t) ? t : null;
    }),
  );
  console.log(`e2e-apps: reopening the conversation rendered its App again (${time})`);
}

/** Waits in the server manager panel until every App server is ready (the window can be up
 * before they are; a message sent earlier would be answered without their tools). */
async function serversReady(wd) {
  await wd.script('location.hash = "#/settings/servers"');
  const count = Object.keys(SCRIPT).length + 1; // and server-everything
  await until(`${count} ready servers`, async () => {
    const ready = await wd.script('return document.querySelectorAll(\'[data-testid="server-row"] [data-light="ready"]\').length');
    return ready === count;
  }, 60000);
  await wd.script('location.hash = "#/"');
}

async function main() {
  const model = await fakeModel();
  children.push({ kill: () => model.close() });
  modelUrl = `http://127.0.0.1:${model.address().port}`;
  configure(modelUrl);
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
    await serversReady(wd);
    const only = process.env.E2E_APPS_ONLY;
    for (const [name, run] of Object.entries({ basic, monitor, budget, hostile })) {
      if (!only || only.split(',').includes(name)) await run(wd);
    }
    if (!only) await reopen(wd);
    if (!only || only.split(',').includes('reasoning')) await reasoning(wd);
  } catch (e) {
    const html = await wd.script('return document.querySelector("[data-testid=messages]")?.innerText ?? document.body.innerText').catch(() => '');
    console.error(`e2e-apps: the window showed:\n${String(html).slice(-3000)}`);
    for (const f of await wd.findAll('[data-testid="mcp-app-frame"]').catch(() => [])) {
      const src = await wd.script('return arguments[0].src', [{ [wd.ELEMENT]: f }]).catch((x) => x.message);
      const inner = await inFrame(wd, f, () => wd.script('return [location.href, String(self.origin), document.body.innerText.slice(0, 600)]')).catch((x) => x.message);
      console.error(`e2e-apps: frame ${src}: ${JSON.stringify(inner)}`);
    }
    throw e;
  } finally {
    await wd.end().catch(() => {});
  }
}

await runScenario('e2e-apps', main, children, dataDir);
