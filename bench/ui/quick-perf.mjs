// Benchmark of the quick window (issue 33) in the real app under Xvfb, through tauri-driver +
// WebKitWebDriver: the global shortcut pressed with xdotool, timed from just before the key is
// sent to the end of the first frame the quick window's page paints after it (the
// `switchboard:quick-painted` mark, read as wall-clock time: lib/perfMarks.ts). The app makes
// the quick window hidden 3 s after start (desktop/quick.rs `prepare`); per launch:
//  1. the first showing in the session, once per launch;
//  2. each later showing (the window was hidden again), BENCH_SHOWS times (20);
//  3. the memory of all the app's processes (summed PSS and RSS) before the window is made and
//     after (made 15 s after start here: SWITCHBOARD_QUICK_PREPARE_AFTER_MS), 5 s settled each.
// Prints medians, p90 and the spread; asserts nothing. BENCH_RUNS launches (3).
// Usage (DISPLAY set, e.g. by xvfb-run):  node bench/ui/quick-perf.mjs <switchboard binary>
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { driver, freePort, sleep, until, windowWith } from '../../tests/e2e/webdriver.mjs';
import { appPid, mb, memoryOf } from './procs.mjs';

const app = resolve(process.argv[2] ?? '');
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SHOWS = Number(process.env.BENCH_SHOWS ?? 20);
const MARK = 'switchboard:quick-painted';
/** When the app makes the hidden quick window here (after the "before" memory is read). */
const PREPARE_AFTER_MS = 15000;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const quantile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)];
const spread = (xs) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;
const PAINTS = `return performance.getEntriesByName('${MARK}').map((e) => performance.timeOrigin + e.startTime)`;

const shortcut = () => execFileSync('xdotool', ['key', '--clearmodifiers', 'ctrl+alt+space']);

/** Switches to the quick window's page once it exists; its handle. */
const quickWindow = (wd, main) => windowWith(wd, '[data-testid="quick-window"]', { except: main, stepMs: 20 });

/** The time from `pressed` to the first paint mark after `before` marks. */
async function paintedAfter(wd, before, pressed) {
  const marks = await until('the quick window to paint', async () => {
    const all = await wd.script(PAINTS);
    return all.length > before ? all : null;
  }, 30000, 10);
  return marks[before] - pressed;
}

async function launch() {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-quick-bench-'));
  const port = await freePort();
  const td = spawn('tauri-driver', ['--port', String(port), '--native-port', String(await freePort())], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, SWITCHBOARD_DATA_DIR: dataDir, WEBKIT_DISABLE_COMPOSITING_MODE: '1', SWITCHBOARD_QUICK_PREPARE_AFTER_MS: String(PREPARE_AFTER_MS) },
  });
  const wd = driver(`http://127.0.0.1:${port}`, 120_000);
  await until('tauri-driver', async () => (await fetch(`http://127.0.0.1:${port}/status`)).ok);
  await wd.start({ alwaysMatch: { 'tauri:options': { application: app, args: ['--data-dir', dataDir] } } });
  const stop = async () => {
    await wd.end().catch(() => {});
    td.kill('SIGTERM');
    await sleep(500);
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { wd, stop };
}

async function oneRun() {
  const { wd, stop } = await launch();
  try {
    const started = Date.now();
    await until('the sidebar', () => wd.find('[data-testid="new-conversation"]'), 60000);
    const main = await wd.handle();
    await sleep(5000);
    const pid = appPid(app);
    if ((await wd.handles()).length !== 1) throw new Error('the quick window was made before the first reading');
    const before = memoryOf(pid);
    // The app makes the hidden quick window; count its marks, settle, read again, then show it.
    await sleep(Math.max(0, started + PREPARE_AFTER_MS - Date.now()));
    await quickWindow(wd, main);
    await sleep(5000);
    const after = memoryOf(pid);
    const count = (await wd.script(PAINTS)).length;
    let pressed = Date.now();
    shortcut();
    const first = await paintedAfter(wd, count, pressed);
    const shows = [];
    for (let i = 0; i < SHOWS; i++) {
      await wd.script(`return window.__TAURI_INTERNALS__.invoke('hide_quick_window')`);
      await sleep(400);
      const marks = (await wd.script(PAINTS)).length;
      pressed = Date.now();
      shortcut();
      shows.push(await paintedAfter(wd, marks, pressed));
    }
    return { first, shows, before, after };
  } finally {
    await stop();
  }
}

const runs = [];
for (let i = 0; i < RUNS; i++) {
  const run = await oneRun();
  runs.push(run);
  console.log(
    `run ${i + 1}: first showing ${run.first.toFixed(0)} ms; showing again median ${median(run.shows).toFixed(0)} ms ` +
      `(p90 ${quantile(run.shows, 0.9).toFixed(0)}, ${spread(run.shows)}); PSS ${mb(run.before.pss)} → ${mb(run.after.pss)} ` +
      `(+${mb(run.after.pss - run.before.pss)}), RSS ${mb(run.before.rss)} → ${mb(run.after.rss)}`,
  );
}
const shows = runs.flatMap((r) => r.shows);
const firsts = runs.map((r) => r.first);
const pss = runs.map((r) => (r.after.pss - r.before.pss) / 1024);
const rss = runs.map((r) => (r.after.rss - r.before.rss) / 1024);
console.log(`quick window, ${RUNS} launches × ${SHOWS} showings:`);
console.log(`  shown again (shortcut → painted): median ${median(shows).toFixed(0)} ms, p90 ${quantile(shows, 0.9).toFixed(0)} ms, spread ${spread(shows)} ms (${shows.length} showings)`);
console.log(`  first showing in a session: median ${median(firsts).toFixed(0)} ms (${firsts.map((f) => f.toFixed(0)).join(', ')})`);
console.log(`  memory it adds (made hidden, before → after): PSS median +${median(pss).toFixed(1)} MB (${pss.map((m) => m.toFixed(1)).join(', ')}), RSS median +${median(rss).toFixed(1)} MB`);
