// What the e2e scripts (tests/e2e/*.mjs) share, on top of the WebDriver client in
// webdriver.mjs: the binary under test and the repository root; one run of a scenario, with its
// own profile folder, the binary's terminal commands (`cli`) and database (`sqlite`) on that
// profile, the window launched through tauri-driver + WebKitWebDriver, HTTP servers on
// 127.0.0.1 (among them a fake OpenAI-compatible model), screenshots that must not be blank, and
// the run's end (its result line, everything it started stopped, its folders removed, the exit
// code); and the window helpers more than one scenario uses.

import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { driver, freePort, sleep, until } from './webdriver.mjs';

export { sleep, until };

/** The debug binary under test: the script's first argument. */
export const app = resolve(process.argv[2] ?? '');
/** The repository's root folder. */
export const root = resolve(import.meta.dirname, '../..');

/** One run of the scenario `name` (the prefix of its log lines), on a fresh profile folder. */
export function testRun(name) {
  const dataDir = mkdtempSync(join(tmpdir(), `switchboard-${name}-`));
  /** What the end of the run stops: child processes, and anything else with a `kill()`. */
  const children = [];
  const profileEnv = () => ({ ...process.env, SWITCHBOARD_DATA_DIR: dataDir });

  /** An HTTP server on 127.0.0.1 answering with `handler`, closed at the end; its base URL. */
  async function serve(handler) {
    const server = http.createServer(handler);
    server.on('connection', (s) => s.setNoDelay(true));
    await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
    children.push({ kill: () => server.close() });
    return `http://127.0.0.1:${server.address().port}`;
  }

  return {
    name,
    dataDir,
    children,

    /** A temporary folder, removed at the end. */
    tempDir(label) {
      const dir = mkdtempSync(join(tmpdir(), `switchboard-${name}-${label}-`));
      children.push({ kill: () => rmSync(dir, { recursive: true, force: true }) });
      return dir;
    },

    /** The binary's terminal command `args` on this profile; its standard output. */
    cli: (...args) => execFileSync(app, ['--data-dir', dataDir, ...args], { encoding: 'utf8', env: profileEnv() }),

    /** The rows of `query` on the profile's database (committed, so it may write). */
    sqlite(query) {
      const py = `import sqlite3,sys,json\nc=sqlite3.connect(sys.argv[1])\nr=c.execute(sys.argv[2]).fetchall()\nc.commit()\nprint(json.dumps(r))`;
      return JSON.parse(execFileSync('python3', ['-c', py, join(dataDir, 'switchboard.db'), query]));
    },

    /** The whole screen to docs/screenshots/<file>.png; fails when it is blank. */
    screenshot(file) {
      mkdirSync(join(root, 'docs/screenshots'), { recursive: true });
      const shot = join(root, `docs/screenshots/${file}.png`);
      execFileSync('import', ['-window', 'root', shot]);
      const colours = Number(execFileSync('identify', ['-format', '%k', shot]).toString());
      if (!(colours > 64)) throw new Error(`the screenshot is blank (${colours} colours): ${shot}`);
      console.log(`${name}: screenshot ${shot} (${colours} colours)`);
    },

    /** Starts tauri-driver (and through it WebKitWebDriver) and a session of the app's window on
     * this profile, `args` after `--data-dir`; `env` is added to the driver's environment (an
     * undefined value removes a variable). The WebDriver client: `end()` it when done. */
    async launch({ args = [], env = {} } = {}) {
      const port = await freePort();
      const nativePort = await freePort();
      const driverEnv = { ...profileEnv(), WEBKIT_DISABLE_COMPOSITING_MODE: '1', ...env };
      for (const [key, value] of Object.entries(driverEnv)) if (value === undefined) delete driverEnv[key];
      const td = spawn('tauri-driver', ['--port', String(port), '--native-port', String(nativePort)], {
        stdio: ['ignore', 'inherit', 'inherit'],
        env: driverEnv,
      });
      children.push(td);
      const wd = driver(`http://127.0.0.1:${port}`);
      await until('tauri-driver', async () => (await fetch(`http://127.0.0.1:${port}/status`)).ok);
      await wd.start({ alwaysMatch: { 'tauri:options': { application: app, args: ['--data-dir', dataDir, ...args] } } });
      return wd;
    },

    serve,

    /** A fake OpenAI-compatible model, `fake-model`, served by {@link serve}: `…/models` lists
     * it; any other request is a chat completion whose JSON body goes to `answer(body)`, which
     * returns the reply streamed back as server-sent events: a string (one assistant delta with
     * that content, then finish `stop`) or `{ deltas, finish }`. A body that does not parse, or
     * an answer that throws, gets a 400. `log` prints every request. Returns its base URL (the
     * API is under `/v1`) and `fromPages`: the requests that came from a web page (an Origin
     * header), not from the engine. */
    async fakeModel(answer, { log = false } = {}) {
      const fromPages = [];
      const url = await serve((req, res) => {
        req.setEncoding('utf8');
        let raw = '';
        req.on('data', (c) => (raw += c));
        req.on('end', () => {
          if (req.headers.origin) fromPages.push(`${req.method} ${req.url} from ${req.headers.origin}`);
          if (log) console.log(`fake model: ${req.method} ${req.url} ${raw.slice(0, 400)}`);
          if (req.url.endsWith('/models')) {
            res.writeHead(200, { 'content-type': 'application/json' });
            return res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model' }] }));
          }
          let reply;
          try {
            reply = answer(JSON.parse(raw || '{}'));
          } catch (e) {
            res.writeHead(400);
            return res.end(String(e));
          }
          if (typeof reply === 'string') sse(res, [{ role: 'assistant', content: reply }], 'stop');
          else sse(res, reply.deltas, reply.finish);
        });
      });
      return { url, fromPages };
    },

    /** Runs the scenario `main`: prints `<name>: 1 passed, 0 failed` (or the failure), then
     * stops `children`, removes the profile and exits with the scenario's status. An interrupt
     * cleans up the same way. */
    async run(main) {
      const cleanUp = async () => {
        for (const c of children) c.kill('SIGTERM');
        await sleep(300);
        rmSync(dataDir, { recursive: true, force: true });
      };
      for (const signal of ['SIGINT', 'SIGTERM']) {
        process.once(signal, () => cleanUp().then(() => process.exit(1)));
      }
      let failed = false;
      try {
        await main();
        console.log(`${name}: 1 passed, 0 failed`);
      } catch (e) {
        failed = true;
        console.error(`${name}: FAILED: ${e.message}`);
        console.log(`${name}: 0 passed, 1 failed`);
      } finally {
        await cleanUp();
      }
      process.exit(failed ? 1 : 0);
    },
  };
}

/** Streams `deltas` as chat completion chunks of `fake-model`, then one that ends with `finish`. */
function sse(res, deltas, finish) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunk = (delta, finishReason) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'fake-model', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
  for (const delta of deltas) res.write(chunk(delta, null));
  res.write(chunk({}, finish));
  res.end('data: [DONE]\n\n');
}

/** Clicks through the page's own `click()` (a toast or a tooltip over the element would make
 * WebDriver's click "intercepted"); fails on an error banner, naming it. */
export async function press(wd, id) {
  await wd.script('arguments[0].scrollIntoView({block: "center"}); arguments[0].click(); return true;', [{ [wd.ELEMENT]: id }]);
  for (const b of await wd.findAll('[data-testid="error-banner"]')) throw new Error(`the window shows an error: ${await wd.text(b)}`);
}

/** Goes to a route of the window (hash routing). */
export const go = (wd, hash) => wd.script(`location.hash = arguments[0]; return true;`, [hash]);

/** Starts a conversation from the sidebar, names it `title`; its composer. */
export async function newChat(wd, title) {
  await wd.click(await until('the new-chat button', () => wd.find('[data-testid="new-conversation"]')));
  const rename = await until('the rename input', () => wd.find('[data-testid="rename-input"]'));
  await wd.type(rename, `${title}\uE007`);
  return until('the composer', () => wd.find('[data-testid="composer"]'));
}
