// Benchmark of the real app (the `switchboard` binary) under Xvfb, through tauri-driver +
// WebKitWebDriver, with 10,000 conversations in its SQLite file (seeded by seed-db.py):
//  1. cold start to the first painted conversation list, RUNS times: from the app process's
//     start (/proc) to the `switchboard:conversations-painted` performance mark the UI sets at
//     the end of the frame that first shows the list (lib/perfMarks.ts);
//  2. memory of all the app's processes (the app, WebKit's web and network processes and their
//     helpers; not the WebDriver ones) a few seconds after that: summed RSS and PSS;
//  3. idle memory after 10 and after 1,000 streamed turns (10 per conversation, through the
//     composer, answered by a fake OpenAI-compatible server on 127.0.0.1).
// Prints medians (and the start-up's p90); asserts nothing. BENCH_RUNS launches (5; the issue's
// figures take 20), BENCH_TURNS streamed turns (1000; 0 skips the memory-over-time part);
// to split the growth: BENCH_TURN_MODE=ipc (the turns over IPC, nothing rendered) and
// BENCH_RELOAD=1 (after the last turn, reload the page and measure once more);
// BENCH_FIRST_LAUNCH=1 makes every launch a first one on a fresh machine (see firstLaunch);
// BENCH_PER_CONVERSATION turns per conversation (10); BENCH_ANSWER=plain or long (fake-openai.mjs).
// Usage (DISPLAY set, e.g. by xvfb-run):
//   node bench/ui/app-perf.mjs <switchboard binary>      (make bench-ui does all of it)
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startFakeOpenAi } from './fake-openai.mjs';
import { appPid as findAppPid, mb, memoryOf, stat, tree } from './procs.mjs';
import { driver as webdriver, freePort, sleep, until as pollUntil } from '../../tests/e2e/webdriver.mjs';

const app = resolve(process.argv[2] ?? '');
const here = import.meta.dirname;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TURNS = Number(process.env.BENCH_TURNS ?? 1000);
const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 10000);
const MARK = 'switchboard:conversations-painted';
/** BENCH_TURN_MODE=ipc: the turns go straight over IPC with nothing rendered (see IPC_TURNS_SCRIPT). */
const IPC_ONLY = process.env.BENCH_TURN_MODE === 'ipc';
/** BENCH_PER_CONVERSATION: turns in each conversation before a new one (10). */
const PER_CONVERSATION = Number(process.env.BENCH_PER_CONVERSATION ?? 10);
/** BENCH_RELOAD=1: after the last turn, reload the page and measure again. */
const RELOAD = process.env.BENCH_RELOAD === '1';
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
const children = [];
/** The running tauri-driver (one at a time). */
const drivers = [];
/** The fresh per-user directories of BENCH_FIRST_LAUNCH runs, removed at the end. */
const fresh = [];
/** BENCH_FIRST_LAUNCH=1: every launch as the first on a freshly set-up machine (see firstLaunch);
 * `disk`: only the page cache dropped; `home`: only the per-user caches empty. */
const FIRST_LAUNCH = ['1', 'disk', 'home'].includes(process.env.BENCH_FIRST_LAUNCH ?? '') ? process.env.BENCH_FIRST_LAUNCH : null;
/** Polls every 20 ms for at most a minute. */
const until = (what, fn) => pollUntil(what, fn, 60_000, 20);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
/** The value at fraction `p` of the sorted values (nearest rank): 0.9 gives the p90. */
const quantile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
};

/** The shared WebDriver client (requests may take 10 minutes), starting the app on our data dir. */
function driver(base) {
  const wd = webdriver(base, 600_000);
  return {
    ...wd,
    async start() {
      await wd.start({ alwaysMatch: { 'tauri:options': { application: app, args: ['--data-dir', dataDir] } } });
      await wd.timeouts({ script: 600_000 });
    },
  };
}

// ---- processes and memory (/proc): see procs.mjs ----

const appPid = () => findAppPid(app);

/** The CPU time (ms) the app's processes have used so far (user + system), in all and by
 * process ("WebKitWebProces 420, …"). */
function cpuOf(root) {
  const ticks = Number(execFileSync('getconf', ['CLK_TCK']).toString());
  const each = tree(root).map((pid) => {
    let name = '?';
    try {
      name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      // gone meanwhile
    }
    return { name, ms: ((stat(pid)?.cpu ?? 0) * 1000) / ticks };
  });
  return { ms: each.reduce((sum, p) => sum + p.ms, 0), each: each.filter((p) => p.ms > 0).map((p) => `${p.name} ${p.ms.toFixed(0)}`).join(', ') };
}

/** When the process started, in ms since the epoch (clock-tick resolution, 10 ms). */
function startedAt(pid) {
  const ticks = Number(execFileSync('getconf', ['CLK_TCK']).toString());
  const uptime = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
  return Date.now() - (uptime - stat(pid).start / ticks) * 1000;
}

// ---- the scenario ----

function prepare(modelUrl) {
  const cli = (...args) => execFileSync(app, ['--data-dir', dataDir, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  cli('providers', 'add', 'bench', '--preset', 'openai-compatible', '--base-url', modelUrl);
  const db = join(dataDir, 'switchboard.db');
  execFileSync('python3', ['-c', `import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nc.execute("UPDATE providers SET settings=json_set(settings,'$.defaultModel','fake-model')")\nc.commit()`, db]);
  const started = Date.now();
  console.log(execFileSync('python3', [join(here, 'seed-db.py'), db, String(CONVERSATIONS)]).toString().trim(), `in ${Date.now() - started} ms`);
}

/** The start-up phases the app logged in this run (`phase=… since_exec_ms=…`), oldest first;
 * the log file holds every run of the day, so only the last run's are kept. */
function startupPhases() {
  const logs = join(dataDir, 'logs');
  if (!existsSync(logs)) return 'no log';
  const lines = readdirSync(logs)
    .flatMap((f) => readFileSync(join(logs, f), 'utf8').split('\n'))
    // eslint-disable-next-line no-control-regex
    .map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''))
    .filter((l) => l.includes('start-up'));
  const phases = lines.map((l) => [/phase="([^"]+)"/.exec(l)?.[1], /since_exec_ms=(\d+)/.exec(l)?.[1]]);
  const lastStart = phases.findLastIndex(([p]) => p === 'GTK ready');
  return phases.slice(Math.max(lastStart, 0)).map(([p, ms]) => `${p} ${ms}`).join(', ');
}

async function appGone() {
  await until('the app to exit', () => appPid() === undefined, 30000);
}

async function coldStart(wd) {
  await wd.start();
  const pid = await until('the app process', () => appPid());
  const begun = startedAt(pid);
  const painted = await until('the conversation list', async () => {
    const at = await wd.script(`const m = performance.getEntriesByName(arguments[0])[0]; return m ? performance.timeOrigin + m.startTime : null;`, [MARK]);
    return at ?? undefined;
  });
  // Load-independent: the CPU the app's processes used up to now (a little after the paint).
  const { ms: cpu, each: cpuEach } = cpuOf(pid);
  const rows = await wd.script(`return document.querySelectorAll('[data-testid="conversation-row"]').length`);
  // Where the time went: process start → the page's navigation → its script running → the mark.
  const page = await wd.script(`const n = performance.getEntriesByType('navigation')[0];
    return { origin: performance.timeOrigin, dcl: n ? n.domContentLoadedEventEnd : null, mark: performance.getEntriesByName(arguments[0])[0].startTime };`, [MARK]);
  console.log(`  CPU by process (ms): ${cpuEach}`);
  console.log(`  process start → navigation ${(page.origin - begun).toFixed(0)} ms, → DOMContentLoaded +${page.dcl?.toFixed(0)} ms, → list painted +${page.mark.toFixed(0)} ms`);
  await sleep(3000);
  console.log(`  the app's start-up phases (ms since exec): ${startupPhases()}`);
  return { ms: painted - begun, cpu, rows, memory: memoryOf(pid), pid };
}

/** The memory of WebKitGTK's MiniBrowser (the engine's own minimal browser) showing one line of
 * text, measured like the app: what any WebKitGTK app costs on this machine before its own
 * page. `null` where the MiniBrowser is not installed. */
async function platformFloor() {
  const browser = ['/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser', '/usr/libexec/webkit2gtk-4.1/MiniBrowser'].find(existsSync);
  if (!browser) return null;
  const child = spawn(browser, ['data:text/html,<p>hello</p>'], {
    stdio: 'ignore',
    env: { ...process.env, WEBKIT_DISABLE_COMPOSITING_MODE: '1' },
  });
  children.push(child);
  await sleep(8000);
  const memory = memoryOf(child.pid);
  child.kill('SIGTERM');
  await sleep(500);
  return memory;
}

/** In the window: sends `count` messages through the composer, a new conversation every 10,
 * each once the previous turn has finished. */
const TURNS_SCRIPT = `
const [count, done] = [arguments[0], arguments[arguments.length - 1]];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitFor(test, what) {
  for (let i = 0; i < 3000; i++) { if (test()) return; await sleep(10); }
  const statuses = [...document.querySelectorAll('[data-testid="message"]')].map((m) => m.dataset.role + ':' + m.dataset.status).join(' ');
  const error = document.querySelector('[data-testid="turn-error"], [role="alert"]')?.textContent ?? '';
  const box = document.querySelector('[data-testid="composer"]');
  const send = document.querySelector('[data-testid="send-button"]');
  throw new Error('timed out waiting for ' + what + ' at ' + location.hash + ' [' + statuses + '] ' + error
    + ' composer=' + JSON.stringify(box?.value) + ' send disabled=' + send?.disabled + ' rows=' + document.querySelector('[data-testid="messages"]')?.dataset.total);
}
(async () => {
  for (let i = 0; i < count; i++) {
    if (window.__benchTurns % ${PER_CONVERSATION} === 0) {
      location.hash = '#/';
      await sleep(50);
    }
    const box = document.querySelector('[data-testid="composer"]');
    await waitFor(() => document.querySelector('[data-testid="send-button"]') && !document.querySelector('[data-testid="stop-button"]'), 'the composer');
    box.value = 'Tell me about turn ' + window.__benchTurns;
    box.dispatchEvent(new Event('input', { bubbles: true }));
    await sleep(0);
    const total = () => Number(document.querySelector('[data-testid="messages"]')?.dataset.total ?? 0);
    const before = total();
    const sent = performance.now();
    box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    await waitFor(() => total() >= before + 2 && !document.querySelector('[data-testid="stop-button"]')
      && [...document.querySelectorAll('[data-testid="message"]')].at(-1)?.dataset.status === 'complete', 'turn ' + window.__benchTurns);
    (window.__benchTurnMs ??= []).push(performance.now() - sent);
    window.__benchTurns += 1;
  }
})().then(() => done({ ok: true, turns: window.__benchTurns }), (e) => done({ ok: false, error: String(e) }));
`;

/** In the window: the same turns sent straight over IPC, nothing rendered — \`send_message\` with
 * a Channel that only waits for the turn's \`finished\` event, a new conversation every 10 —
 * while the page shows the settings: the web process's share of a turn without the chat pane. */
const IPC_TURNS_SCRIPT = `
const [count, done] = [arguments[0], arguments[arguments.length - 1]];
const I = window.__TAURI_INTERNALS__;
const turn = (conversationId, text) => new Promise((resolve, reject) => {
  const id = I.transformCallback((raw) => {
    if ('end' in raw) return I.unregisterCallback(id);
    if (raw.message.some((e) => e.type === 'finished')) resolve();
  });
  I.invoke('send_message', { conversationId, text, onEvent: '__CHANNEL__:' + id }).catch(reject);
});
(async () => {
  if (location.hash !== '#/settings') location.hash = '#/settings';
  for (let i = 0; i < count; i++) {
    if (window.__benchTurns % ${PER_CONVERSATION} === 0) window.__benchConversation = (await I.invoke('create_conversation', { input: {} })).id;
    await turn(window.__benchConversation, 'Tell me about turn ' + window.__benchTurns);
    window.__benchTurns += 1;
  }
})().then(() => done({ ok: true, turns: window.__benchTurns }), (e) => done({ ok: false, error: String(e) }));
`;

/** The page's own counts: callbacks Tauri holds for it, DOM elements. */
const PAGE_STATS_SCRIPT = `return { callbacks: window.__TAURI_INTERNALS__.callbacks.size, elements: document.getElementsByTagName('*').length }`;

/** In the window: counts the IPC messages from now on — \`invoke\` fetches of ipc://localhost by
 * command, and callbacks run (an invoke's answer, a Channel message or an event): callbacks
 * beyond the invokes' answers came from native script evaluations. */
const COUNT_IPC_SCRIPT = `
const count = (window.__benchIpc = { invokes: {}, callbacks: 0 });
const fetch = window.fetch;
window.fetch = function (url, ...rest) {
  const u = String(url);
  if (u.startsWith('ipc://')) {
    const cmd = decodeURIComponent(u.slice(u.indexOf('/', 6) + 1));
    count.invokes[cmd] = (count.invokes[cmd] ?? 0) + 1;
  }
  return fetch.call(this, url, ...rest);
};
const callbacks = window.__TAURI_INTERNALS__.callbacks;
const get = callbacks.get.bind(callbacks);
callbacks.get = (id) => { count.callbacks += 1; return get(id); };
`;

/** "n invokes (command ×k, …) and m evaluations per turn" from the counts of COUNT_IPC_SCRIPT. */
function ipcPerTurn(count, turns) {
  const invokes = Object.values(count.invokes).reduce((a, b) => a + b, 0);
  const each = Object.entries(count.invokes)
    .sort((a, b) => b[1] - a[1])
    .map(([cmd, n]) => `${cmd} ${(n / turns).toFixed(2)}`)
    .join(', ');
  return `${(invokes / turns).toFixed(2)} invokes (${each}) and ${((count.callbacks - invokes) / turns).toFixed(2)} evaluations that ran a callback per turn, over ${turns} turns`;
}

async function idleMemory(wd, pid) {
  await wd.script(`location.hash = '#/'`);
  await sleep(Number(process.env.BENCH_IDLE_MS ?? 15000));
  return memoryOf(pid);
}

/** In the window: from a new chat, opens the 2,000-message conversation and times the first
 * frame that shows its last answer. */
const OPEN_SCRIPT = `
const done = arguments[arguments.length - 1];
location.hash = '#/';
setTimeout(() => {
  const started = performance.now();
  location.hash = '#/c/bench-long';
  const check = () => {
    const texts = [...document.querySelectorAll('[data-testid="message-text"]')];
    if (!texts.some((t) => t.textContent.includes('Answer 1999'))) return requestAnimationFrame(check);
    requestAnimationFrame(() => setTimeout(() => done({ ms: performance.now() - started, rendered: texts.length })));
  };
  check();
}, 1000);
`;

async function turns(wd) {
  await wd.start();
  const pid = await until('the app process', () => appPid());
  await until('the conversation list', () => wd.script(`return performance.getEntriesByName(arguments[0]).length > 0`, [MARK]));
  const opens = [];
  for (let i = 0; i < RUNS; i++) opens.push(await wd.scriptAsync(OPEN_SCRIPT));
  const ipc = [];
  for (let i = 0; i < RUNS; i++) {
    ipc.push(await wd.scriptAsync(`const done = arguments[arguments.length - 1]; const t = performance.now();
      window.__TAURI_INTERNALS__.invoke('conversation_messages', { conversationId: 'bench-long' }).then((m) => done({ ms: performance.now() - t, n: m.length }), (e) => done({ ms: -1, n: String(e) }));`));
  }
  console.log(`  of which reading its messages over IPC (conversation_messages, ${ipc[0].n} messages): median ${median(ipc.map((r) => r.ms)).toFixed(0)} ms`);
  console.log(`opening the 2,000-message conversation: median ${median(opens.map((o) => o.ms)).toFixed(0)} ms (runs: ${opens.map((o) => o.ms.toFixed(0)).join(', ')}; ${opens[0].rendered} messages rendered)`);
  await wd.script(`window.__benchTurns = 0`);
  await wd.script(COUNT_IPC_SCRIPT);
  const run = async (n) => {
    const r = await wd.scriptAsync(IPC_ONLY ? IPC_TURNS_SCRIPT : TURNS_SCRIPT, [n]);
    if (!r.ok) throw new Error(r.error);
    return r.turns;
  };
  // Idle memory at checkpoints: a leak grows with the turns, a cache levels off.
  const checkpoints = [10, 100, 250, 500, 1000, 2000, TURNS].filter((n, i, all) => n > 0 && n <= TURNS && all.indexOf(n) === i);
  const idle = {};
  let done = 0;
  for (const target of checkpoints) {
    const started = Date.now();
    while (done < target) done = await run(Math.min(50, target - done));
    if (target === checkpoints[0]) console.log(`IPC messages: ${ipcPerTurn(await wd.script('return window.__benchIpc'), done)}`);
    if (target === checkpoints[0] && !IPC_ONLY) {
      const ms = await wd.script('return window.__benchTurnMs');
      console.log(`a turn in the window, Enter to the answer shown complete: median ${median(ms).toFixed(0)} ms, p90 ${quantile(ms, 0.9).toFixed(0)} ms over ${ms.length} turns (the checks poll every 10 ms)`);
    }
    idle[target] = await idleMemory(wd, pid);
    const page = await wd.script(PAGE_STATS_SCRIPT);
    console.log(`after ${target} turns (${Date.now() - started} ms for the last ${target - (checkpoints[checkpoints.indexOf(target) - 1] ?? 0)}): idle RSS ${mb(idle[target].rss)}, PSS ${mb(idle[target].pss)} (${idle[target].each.join(', ')}); page: ${page.callbacks} callbacks, ${page.elements} elements`);
  }
  if (RELOAD && TURNS > 0) {
    // Garbage or live? Objects kept long enough to reach the old generation, then dropped,
    // twice: the collector must run full collections (short-lived ones only make it collect the
    // young generation), which also frees whatever the page left unreachable.
    await wd.scriptAsync(`const done = arguments[arguments.length - 1];
      (async () => { for (let round = 0; round < 2; round++) { const kept = [];
        for (let i = 0; i < 40; i++) { kept.push(Array.from({ length: 20000 }, (_, j) => ({ j, s: 'x' + j }))); await new Promise((r) => setTimeout(r, 50)); }
        kept.length = 0; await new Promise((r) => setTimeout(r, 2000)); } })().then(() => done(null));`);
    const churned = await idleMemory(wd, pid);
    console.log(`after full collections (objects kept until old, then dropped): idle RSS ${mb(churned.rss)}, PSS ${mb(churned.pss)} (${churned.each.join(', ')})`);
    // What the page holds vs what the process keeps: a reload drops the page's whole JS heap
    // and DOM (a new global object); what does not come back is the process's (allocator, caches).
    await wd.script('location.reload()');
    await sleep(1000);
    await until('the reloaded list', () => wd.script(`return performance.getEntriesByName(arguments[0]).length > 0`, [MARK]).catch(() => false));
    const reloaded = await idleMemory(wd, pid);
    console.log(`after a reload of the page: idle RSS ${mb(reloaded.rss)}, PSS ${mb(reloaded.pss)} (${reloaded.each.join(', ')})`);
  }
  return TURNS > 0 ? { after10: idle[checkpoints[0]], afterAll: idle[TURNS] } : null;
}

/** Starts a tauri-driver (the one before it stops) with `env` added to the app's environment. */
async function startDriver(env = {}) {
  drivers.splice(0).forEach((d) => d.kill('SIGTERM'));
  const port = await freePort();
  const td = spawn('tauri-driver', ['--port', String(port), '--native-port', String(await freePort())], {
    stdio: ['ignore', 'ignore', 'inherit'],
    // CPU painting, as the app chooses without a GPU; a value set outside (0: composite) wins.
    env: { ...process.env, WEBKIT_DISABLE_COMPOSITING_MODE: process.env.WEBKIT_DISABLE_COMPOSITING_MODE ?? '1', ...env },
  });
  drivers.push(td);
  await until('tauri-driver', async () => (await fetch(`http://127.0.0.1:${port}/status`)).ok);
  return driver(`http://127.0.0.1:${port}`);
}

/** For BENCH_FIRST_LAUNCH: drops the kernel's page cache (as root; says so where it cannot)
 * and makes empty per-user cache and config directories; returns the environment for them. */
function firstLaunch() {
  if (FIRST_LAUNCH !== 'home') {
    try {
      execFileSync('sync');
      writeFileSync('/proc/sys/vm/drop_caches', '3');
    } catch (e) {
      console.log(`  (the page cache could not be dropped: ${e.message.split('\n')[0]})`);
    }
  }
  if (FIRST_LAUNCH === 'disk') return {};
  const home = mkdtempSync(join(tmpdir(), 'switchboard-fresh-'));
  fresh.push(home);
  return { XDG_CACHE_HOME: join(home, 'cache'), XDG_CONFIG_HOME: join(home, 'config') };
}

async function main() {
  if (!existsSync(app)) throw new Error(`no app binary at ${app}`);
  const model = await startFakeOpenAi();
  children.push({ kill: () => void model.close() });
  prepare(model.url);
  let wd = await startDriver();
  const starts = [];
  for (let i = 0; i < RUNS; i++) {
    // A first launch on a freshly set-up machine: nothing of the app or its libraries in the
    // page cache, and no per-user caches (GStreamer's registry, WebKit's, Mesa's, fontconfig's).
    if (FIRST_LAUNCH) wd = await startDriver(firstLaunch());
    try {
      starts.push(await coldStart(wd));
    } finally {
      await wd.end();
      await appGone();
    }
    const last = starts.at(-1);
    console.log(`run ${i + 1}: first painted list ${last.ms.toFixed(0)} ms (${last.rows} rows, ${last.cpu.toFixed(0)} ms of CPU by then); RSS ${mb(last.memory.rss)}, PSS ${mb(last.memory.pss)} (RSS/PSS: ${last.memory.each.join(', ')})`);
  }
  const floor = await platformFloor();
  let memory = null;
  {
    try {
      memory = await turns(wd);
    } finally {
      await wd.end();
      await appGone();
    }
  }
  console.log(`load: ${loadavg().map((l) => l.toFixed(2)).join(' ')} (1/5/15 min); ${CONVERSATIONS} conversations; ${app}`);
  const ms = starts.map((s) => s.ms);
  console.log(`cold start to the first painted conversation list: median ${median(ms).toFixed(0)} ms, p90 ${quantile(ms, 0.9).toFixed(0)} ms (${Math.min(...ms).toFixed(0)}–${Math.max(...ms).toFixed(0)}) over ${RUNS} runs; CPU time of the app's processes by then: median ${median(starts.map((s) => s.cpu)).toFixed(0)} ms`);
  console.log(`memory of all the app's processes after start: RSS median ${mb(median(starts.map((s) => s.memory.rss)))}, PSS median ${mb(median(starts.map((s) => s.memory.pss)))}`);
  if (floor) {
    const ours = median(starts.map((s) => s.memory.pss));
    console.log(`the platform's floor, WebKitGTK's own MiniBrowser showing one line (CPU painting, as ours without a GPU): RSS ${mb(floor.rss)}, PSS ${mb(floor.pss)} (${floor.each.join(', ')}); Switchboard with ${CONVERSATIONS} conversations is ${mb(ours - floor.pss)} PSS above it`);
  }
  if (memory) {
    const growth = (memory.afterAll.pss / memory.after10.pss - 1) * 100;
    const rssGrowth = (memory.afterAll.rss / memory.after10.rss - 1) * 100;
    const pct = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(1)} %`;
    console.log(`idle memory after 10 turns: RSS ${mb(memory.after10.rss)}, PSS ${mb(memory.after10.pss)}; after ${TURNS}: RSS ${mb(memory.afterAll.rss)} (${pct(rssGrowth)}), PSS ${mb(memory.afterAll.pss)} (${pct(growth)})`);
  }
}

let failed = false;
try {
  await main();
} catch (e) {
  failed = true;
  console.error(`bench: FAILED: ${e.message}`);
} finally {
  for (const c of [...children, ...drivers]) c.kill('SIGTERM');
  for (const f of fresh) rmSync(f, { recursive: true, force: true });
  await sleep(300);
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
