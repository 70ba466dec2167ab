// Probe: how the real app's web process grows with the number of IPC messages, whatever the
// UI does with them. Two kinds, 3 rounds of 5,000 each, in two app runs: native script
// evaluations (how Tauri delivers events and Channel messages: one evaluation per message)
// and `invoke` calls (a fetch of ipc://localhost each). Prints the WebKitWebProcess PSS after
// each round (6 s idle). Asserts nothing.
// Usage: xvfb-run -a dbus-run-session -- node bench/ui/ipc-memory.mjs <switchboard binary>
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { driver as webdriver, freePort, sleep, until } from '../../tests/e2e/webdriver.mjs';

const app = resolve(process.argv[2] ?? '');
const ROUNDS = 3;
const PER_ROUND = 5000;
const pids = () => readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map(Number);
const comm = (p) => {
  try {
    return readFileSync(`/proc/${p}/comm`, 'utf8');
  } catch {
    return '';
  }
};
const webProcesses = () => pids().filter((p) => comm(p).startsWith('WebKitWebProces'));
const pss = (p) => Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'))[1]) / 1024;

const EVALUATIONS = async (wd, round) => {
  const text = 'x'.repeat(300);
  for (let i = 0; i < PER_ROUND; i++) await wd.script(`window.__sink = {id: ${round * 1e6 + i}, text: "${text}"}; return 0;`);
};
const INVOKES = (wd) =>
  wd.scriptAsync(`const done = arguments[arguments.length - 1];
    (async () => { for (let i = 0; i < ${PER_ROUND}; i++) await window.__TAURI_INTERNALS__.invoke('list_conversations', { page: { limit: 5 } }); })()
      .then(() => done(null), (e) => done(String(e)));`);

async function probe(name, send) {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-ipc-memory-'));
  const port = await freePort();
  const td = spawn('tauri-driver', ['--port', String(port), '--native-port', String(await freePort())], { stdio: 'ignore' });
  const wd = webdriver(`http://127.0.0.1:${port}`, 600_000);
  try {
    await until('tauri-driver', async () => (await fetch(`http://127.0.0.1:${port}/status`)).ok, 60_000, 100);
    const before = new Set(webProcesses());
    await wd.start({ alwaysMatch: { 'tauri:options': { application: app, args: ['--data-dir', dataDir] } } });
    await wd.timeouts({ script: 600_000 });
    await sleep(5000);
    const web = webProcesses().find((p) => !before.has(p));
    const start = pss(web);
    const line = [`${name}: start ${start.toFixed(1)} MB`];
    for (let round = 0; round < ROUNDS; round++) {
      const failed = await send(wd, round);
      if (failed) throw new Error(failed);
      await sleep(6000);
      line.push(`after ${(round + 1) * PER_ROUND}: ${pss(web).toFixed(1)} MB`);
    }
    console.log(`${line.join(', ')} (web process PSS)`);
  } finally {
    await wd.end().catch(() => {});
    td.kill('SIGTERM');
    await sleep(500);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await probe('native evaluations', EVALUATIONS);
await probe('invoke calls', INVOKES);
