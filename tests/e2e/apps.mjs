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
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newChat, root, sleep, testRun, until } from './lib.mjs';

const fixtures = join(root, 'tests/fixtures/mcp-apps');
const { dataDir, cli, sqlite, screenshot, launch, fakeModel, run } = testRun('e2e-apps');
/** The fake model (started by main): its URL, and `fromPages`, the requests a web page (an App
 * frame) got through to it, which must stay none. */
let model;
const SCRIPT = {
  basic: 'get-time',
  monitor: 'get-system-info',
  budget: 'get-budget-data',
  hostile: 'hostile-view',
};

const ECHOED = 'Hello from Switchboard — 你好 👋';

// The scripted model: a user message naming an App asks for that App's tool; after a tool
// result it answers in text. Tool names are taken from the request (provider-safe names).
function answer(body) {
  const messages = body.messages ?? [];
  const last = messages.at(-1) ?? {};
  const text = typeof last.content === 'string' ? last.content : JSON.stringify(last.content ?? '');
  const tools = (body.tools ?? []).map((t) => t.function?.name ?? '');
  const echo = tools.find((n) => n.startsWith('everything__') && n.endsWith('echo'));
  if (last.role === 'user' && text.includes('think, then echo') && echo) {
    const call = { index: 0, id: 'call_echo', type: 'function', function: { name: echo, arguments: JSON.stringify({ message: ECHOED }) } };
    return {
      deltas: [
        { role: 'assistant', reasoning_content: 'The user wants a greeting sent through a tool. ' },
        { reasoning_content: 'server-everything has **echo**, which returns its message unchanged, so I will call it with a bilingual greeting and report what comes back.' },
        { content: '', tool_calls: [call] },
      ],
      finish: 'tool_calls',
    };
  }
  if (last.role === 'tool' && last.tool_call_id === 'call_echo') {
    return `The server echoed the greeting back unchanged:\n\n> ${ECHOED}`;
  }
  const wanted = Object.entries(SCRIPT).find(([server]) => last.role === 'user' && text.includes(`show ${server}`));
  const name = wanted && tools.find((n) => n.startsWith(`${wanted[0]}__`) && n.endsWith(wanted[1]));
  if (name) {
    // The hostile App is given a URL that is reachable but outside its CSP: this server's.
    const args = wanted[0] === 'hostile' ? { probe: `${model.url}/v1/models` } : {};
    const call = { index: 0, id: `call_${wanted[0]}`, type: 'function', function: { name, arguments: JSON.stringify(args) } };
    return { deltas: [{ role: 'assistant', content: '', tool_calls: [call] }], finish: 'tool_calls' };
  }
  return last.role === 'tool' ? 'Here is the App.' : 'MCP Apps';
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

const lastApp = '[data-testid="mcp-app"]:last-of-type';

/** Starts a conversation, asks for server's App and waits for its frame. */
async function chatFor(wd, server) {
  const composer = await newChat(wd, `App: ${server}`);
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
  if (model.fromPages.length) throw new Error(`an App reached the fake model: ${model.fromPages.join('; ')}`);
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
  const composer = await newChat(wd, 'Reasoning and a tool');
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
  model = await fakeModel(answer, { log: Boolean(process.env.E2E_APPS_DEBUG) });
  configure(model.url);
  const wd = await launch();
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

await run(main);
