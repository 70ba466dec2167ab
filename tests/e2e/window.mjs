// The real Switchboard window end to end, under Xvfb, through tauri-driver + WebKitWebDriver:
// create a conversation from the sidebar, rename it, check the row in the SQLite file, and save
// a screenshot (docs/screenshots/main.png) that must not be blank.
//
// Usage: node tests/e2e/window.mjs <path to the debug binary>   (DISPLAY must be set)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { app, sleep, testRun, until } from './lib.mjs';

const { dataDir, children, sqlite, screenshot, launch, run } = testRun('e2e');
const TITLE = 'E2E 测试 conversation';

// A second launch hands over to the running window and exits, so two processes never write
// one database.
async function secondLaunchExits() {
  const second = spawn(app, ['--data-dir', dataDir], { stdio: 'ignore' });
  children.push(second);
  const code = await Promise.race([
    new Promise((ok) => second.on('exit', (c) => ok(c))),
    sleep(15000).then(() => 'still running'),
  ]);
  if (code !== 0) throw new Error(`a second launch did not hand over and exit: ${code}`);
  // It never opened the profile: it saw the running window on the bus and held its engine back
  // (a newer build would otherwise migrate the database under the running window).
  const logs = readdirSync(join(dataDir, 'logs')).map((f) => readFileSync(join(dataDir, 'logs', f), 'utf8')).join('');
  const opened = logs.split('\n').filter((l) => l.includes('engine opened')).length;
  if (!logs.includes('the engine waits for the hand-over')) throw new Error('the second launch did not see the running window before opening the engine');
  if (opened !== 1) throw new Error(`the engine was opened ${opened} times; the second launch must not open it`);
  console.log('e2e: a second launch focused the first window and exited without opening the profile');
}

// The app's web process runs without JavaScriptCore's code cache and JIT (startup::
// tune_script_engine: every Tauri event is a script evaluated once, so the cache only holds what
// never comes again; compiled code grew the process with every turn shown).
function webProcessScriptEngineOptions() {
  const read = (path) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return '';
    }
  };
  const ours = readdirSync('/proc').filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
    if (read(`/proc/${pid}/comm`).trim() !== 'WebKitWebProces') return false;
    const ppid = read(`/proc/${pid}/stat`).split(') ')[1]?.split(' ')[1];
    try {
      return readlinkSync(`/proc/${ppid}/exe`) === app;
    } catch {
      return false;
    }
  });
  if (ours.length === 0) throw new Error('no web process of the app found');
  for (const pid of ours) {
    const env = read(`/proc/${pid}/environ`).split('\0');
    if (!env.includes('JSC_useCodeCache=false')) throw new Error(`web process ${pid} runs with JavaScriptCore's code cache`);
    if (!env.includes('JSC_useJIT=false')) throw new Error(`web process ${pid} runs with JavaScriptCore's JIT`);
  }
  console.log(`e2e: the web process runs without JavaScriptCore's code cache and JIT (${ours.length} process)`);
}

// A profile whose database is not one ends with one clear line and exit code 1: no panic, no
// window left open, the file untouched (the engine opens while GTK starts, before any window).
async function corruptProfileFailsCleanly() {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-corrupt-'));
  const junk = 'not a database '.repeat(64);
  writeFileSync(join(dir, 'switchboard.db'), junk);
  const child = spawn(app, ['--data-dir', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const code = await Promise.race([
    new Promise((ok) => child.on('exit', (c) => ok(c))),
    sleep(30000).then(() => 'still running'),
  ]);
  const lines = stderr.split('\n').filter((l) => l.startsWith('switchboard: '));
  try {
    if (code !== 1) throw new Error(`a corrupt profile exited with ${code}: ${stderr.slice(-500)}`);
    if (/panicked/.test(stderr)) throw new Error(`a corrupt profile panicked: ${stderr.slice(-500)}`);
    if (!lines.some((l) => l.includes('corrupt'))) throw new Error(`no clear error line: ${stderr.slice(-500)}`);
    if (readFileSync(join(dir, 'switchboard.db'), 'utf8') !== junk) throw new Error('the corrupt file was changed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`e2e: a corrupt profile ends with "${lines[0]}"`);
}

async function main() {
  await corruptProfileFailsCleanly();
  const wd = await launch();
  try {
    const newButton = await until('the sidebar', () => wd.find('[data-testid="new-conversation"]'));
    await wd.click(newButton);
    const input = await until('the rename input', () => wd.find('[data-testid="rename-input"]'));
    await wd.type(input, TITLE + '\uE007');
    const row = await until('the renamed row', async () => {
      for (const r of await wd.findAll('[data-testid="conversation-row"]')) {
        if ((await wd.text(r)).includes(TITLE)) return r;
      }
    });
    const id = await wd.attr(row, 'data-id');
    const rows = await until('the row in SQLite', () => {
      const r = sqlite(`SELECT id, title FROM conversations`);
      return r.length === 1 && r[0][1] === TITLE ? r : undefined;
    });
    if (rows[0][0] !== id) throw new Error(`the database has ${rows[0][0]}, the window shows ${id}`);
    console.log(`e2e: conversation ${id} renamed to "${TITLE}" and found in the SQLite file`);
    webProcessScriptEngineOptions();
    await sleep(500);
    screenshot('main');
    await secondLaunchExits();
  } finally {
    await wd.end().catch(() => {});
  }
}

await run(main);
