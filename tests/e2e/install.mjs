// Installing servers in the real Switchboard window, under Xvfb, through tauri-driver +
// WebKitWebDriver. A registry on 127.0.0.1 serves the recorded entries of
// tests/fixtures/registry/servers.json with the registry API's search and cursor paging (as
// tests/suite/registry/mod.rs does for the engine's tests). The app starts on an install link
// (`--open-url`): the confirmation must show the exact command, arguments and env values that
// came with the link (a link's values are what will run, so they are shown, issue 31) and the
// grants (tool approval: ask), and Cancel must save nothing. Then Settings → Servers → Browse: the registry URL is
// set, the listing paged, an entry's install form opened (a masked secret, a select of choices,
// a required value enforced) and its exact command shown. Last, a bundle packed here by npm's
// real `mcpb pack` reaches the running window through a second launch (`--open-bundle`, the
// single-instance path): its preview, its user_config value, Install, and the started server's
// tool. Screenshots: docs/screenshots/install-link.png, registry-browser.png,
// registry-install.png, bundle-preview.png.
//
// Usage: node tests/e2e/install.mjs <path to the debug binary>   (DISPLAY must be set)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { app, go, press, root, sleep, testRun, until } from './lib.mjs';

const { dataDir, cli, screenshot, launch, serve, tempDir, run } = testRun('e2e-install');
const work = tempDir('work');
const PAGE = 3;
const SECRET = 'sk-link-secret-value';
const LINK_CONFIG = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything@2026.8.31'], env: { API_KEY: SECRET } };
const LINK = `switchboard://mcp/install?name=linked-everything&config=${encodeURIComponent(Buffer.from(JSON.stringify(LINK_CONFIG)).toString('base64'))}`;

/** The registry API over the recorded entries: `search` (a substring of the name),
 * `version=latest`, `cursor` (the name of the previous page's last entry), pages of {@link PAGE};
 * its base URL. */
function fakeRegistry() {
  const recorded = JSON.parse(readFileSync(join(root, 'tests/fixtures/registry/servers.json'), 'utf8'));
  const latest = (i) => i._meta?.['io.modelcontextprotocol.registry/official']?.isLatest === true;
  return serve((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname !== '/v0/servers') {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end('{"error":"not found"}');
    }
    const search = url.searchParams.get('search') ?? '';
    const items = recorded.filter((i) => i.server.name.includes(search) && (url.searchParams.get('version') !== 'latest' || latest(i)));
    const cursor = url.searchParams.get('cursor');
    const start = cursor ? items.findIndex((i) => i.server.name === cursor) + 1 : 0;
    const page = items.slice(start, start + PAGE);
    const metadata = { count: page.length };
    if (start + page.length < items.length) metadata.nextCursor = page.at(-1).server.name;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ servers: page, metadata }));
  });
}

const textOf = async (wd, css) => wd.text(await wd.find(css));

async function cancelTheLink(wd) {
  const dialog = await until('the install link confirmation', () => wd.find('[data-testid="install-link"]'));
  const command = await textOf(wd, '[data-testid="preview-command"]');
  const args = await wd.script('return [...document.querySelectorAll("[data-testid=preview-args] code")].map((c) => c.textContent)');
  const env = await textOf(wd, '[data-testid="preview-env"]');
  if (command !== 'npx') throw new Error(`the confirmation shows the command ${command}`);
  if (JSON.stringify(args) !== JSON.stringify(LINK_CONFIG.args)) throw new Error(`the confirmation shows the arguments ${JSON.stringify(args)}`);
  if (!env.includes(`API_KEY=${SECRET}`)) throw new Error(`the confirmation does not show the link's env value: ${env}`);
  const approval = await textOf(wd, '[data-testid="grant-approval"]');
  if (!approval.includes('ask')) throw new Error(`the confirmation shows the tool approval ${approval}`);
  if (!(await wd.text(dialog)).includes('npx')) throw new Error('the confirmation does not show the command');
  if (!(await textOf(wd, '[data-testid="link-url"]')).startsWith('switchboard://mcp/install?name=linked-everything')) throw new Error('the confirmation does not show the link');
  await sleep(300);
  screenshot('install-link');
  await press(wd, await wd.find('[data-testid="link-cancel"]'));
  await until('the confirmation to close', async () => (await wd.findAll('[data-testid="install-link"]')).length === 0);
  console.log('e2e-install: the install link showed npx, its two arguments, API_KEY with the link\'s value and approval on; Cancel closed it');
}

const entryNames = (wd) => wd.script('return [...document.querySelectorAll("[data-testid=registry-entry]")].map((e) => e.dataset.name)');

async function browse(wd, registryUrl) {
  await go(wd, '#/settings/servers');
  await press(wd, await until('the Browse button', () => wd.find('[data-testid="servers-browse"]')));
  const url = await until('the registry URL field', () => wd.find('[data-testid="registry-url"]'));
  await wd.script('arguments[0].closest("details").open = true; return true;', [{ [wd.ELEMENT]: url }]);
  await wd.clear(url);
  await wd.type(url, registryUrl);
  await press(wd, await wd.find('[data-testid="registry-url-use"]'));
  const first = await until('the first page from the test registry', async () => {
    const names = await entryNames(wd);
    return names.length === PAGE && names[0] === 'io.github.modelcontextprotocol/server-everything' ? names : undefined;
  });
  await press(wd, await wd.find('.paging button:last-child'));
  const second = await until('the second page', async () => {
    const names = await entryNames(wd);
    return names.length && names[0] !== first[0] ? names : undefined;
  });
  if (!(await textOf(wd, '[data-testid="registry-page"]')).includes('2')) throw new Error('the page number did not move');
  console.log(`e2e-install: the registry listed ${first.join(', ')}; next page ${second.join(', ')}`);
  await wd.script('document.querySelector("[data-testid=registry-browser] details").open = false; document.querySelector("[data-testid=registry-browser]").scrollIntoView({ block: "start" }); return true;');
  await sleep(300);
  screenshot('registry-browser');
  return second;
}

async function installForm(wd) {
  const card = await until('the database-manager entry', () => wd.find('[data-testid="registry-entry"][data-name="io.github.example/database-manager"]'));
  await press(wd, await wd.script('return arguments[0].querySelector(".btn-primary")', [{ [wd.ELEMENT]: card }]).then((e) => e[wd.ELEMENT]));
  await until('the install form', async () => (await wd.findAll('[data-testid="install-field"]')).length > 0);
  const kinds = await wd.script(
    'return [...document.querySelectorAll("[data-testid=install-field]")].map((f) => [f.dataset.key, f.querySelector("select") ? "select" : f.querySelector("input").type, f.querySelector("select, input").value])',
  );
  const kind = Object.fromEntries(kinds.map(([k, t]) => [k, t]));
  const value = Object.fromEntries(kinds.map(([k, , v]) => [k, v]));
  if (kind.DB_PASSWORD !== 'password') throw new Error(`DB_PASSWORD is a ${kind.DB_PASSWORD} field`);
  if (kind.SSL_MODE !== 'select' || value.SSL_MODE !== 'prefer') throw new Error(`SSL_MODE: ${kind.SSL_MODE} ${value.SSL_MODE}`);
  if (value.host !== 'localhost') throw new Error(`--host is not prefilled: ${JSON.stringify(value)}`);
  await press(wd, await wd.find('[data-testid="install-review"]'));
  const missing = await until('the required values named', () => wd.find('[data-testid="install-missing"]'));
  if (!(await wd.text(missing)).includes('DB_PASSWORD')) throw new Error(`the form does not ask for DB_PASSWORD: ${await wd.text(missing)}`);
  for (const [key, type] of kinds) {
    if (type === 'select') {
      // A required choice with no default: the first one.
      await wd.script(
        'const s = arguments[0]; if (s.value === "" && s.getAttribute("aria-required") === "true") { s.value = s.options[1].value; s.dispatchEvent(new Event("change", { bubbles: true })); } return true;',
        [{ [wd.ELEMENT]: await wd.find(`[data-testid="install-field"][data-key="${key}"] select`) }],
      );
      continue;
    }
    const input = await wd.find(`[data-testid="install-field"][data-key="${key}"] input`);
    if ((await wd.attr(input, 'aria-required')) !== 'true' || (await wd.script('return arguments[0].value', [{ [wd.ELEMENT]: input }]))) continue;
    await wd.type(input, type === 'password' ? 'hunter2' : key === 'database_name' ? 'orders' : 'admin');
  }
  await press(wd, await wd.find('[data-testid="install-review"]'));
  const plan = await until('the plan', () => wd.find('[data-testid="install-plan"]'));
  const command = await textOf(wd, '[data-testid="preview-command"]');
  if (command !== 'docker') throw new Error(`the plan runs ${command}`);
  const planText = await wd.text(plan);
  if (planText.includes('hunter2')) throw new Error('the plan shows the secret');
  if (!planText.includes('DB_PASSWORD')) throw new Error('the plan does not name DB_PASSWORD');
  await wd.script('arguments[0].scrollIntoView({ block: "start" }); return true;', [{ [wd.ELEMENT]: plan }]);
  console.log(`e2e-install: the install form masked DB_PASSWORD, offered SSL_MODE's choices, asked for the required values; the plan runs docker (${(await textOf(wd, '[data-testid="runtime-check"]')).trim()})`);
  await sleep(300);
  screenshot('registry-install');
}

async function bundle(wd) {
  const file = join(work, 'greeter.mcpb');
  execFileSync(join(root, 'tests/fixtures/mcp-node/node_modules/.bin/mcpb'), ['pack', join(root, 'tests/fixtures/mcpb/greeter'), file], { stdio: 'ignore' });
  // A second launch hands its file to the running window and ends.
  execFileSync(app, ['--data-dir', dataDir, '--open-bundle', file], { stdio: 'ignore', timeout: 30000, env: { ...process.env, SWITCHBOARD_DATA_DIR: dataDir } });
  const dialog = await until('the bundle preview', () => wd.find('[data-testid="bundle-preview"]'));
  const shown = await wd.text(dialog);
  for (const want of ['Greeter', 'Switchboard tests', '1.0.0', 'greet', 'welcome', 'darwin, linux, win32', 'node >=18.0.0', 'Unsigned']) {
    if (!shown.includes(want)) throw new Error(`the preview does not show ${want}: ${shown}`);
  }
  const greeting = await wd.find('[data-testid="install-field"][data-key="greeting"] input');
  if ((await wd.attr(greeting, 'type')) !== 'password') throw new Error('the sensitive greeting is not masked');
  await wd.type(greeting, 'Ahoy from the window');
  await sleep(300);
  screenshot('bundle-preview');
  await press(wd, await wd.find('[data-testid="bundle-install"]'));
  const result = await until(
    'the installed bundle',
    async () => {
      for (const e of await wd.findAll('[data-testid="bundle-error"]')) throw new Error(`the bundle was not installed: ${await wd.text(e)}`);
      return (await wd.findAll('[data-testid="install-result"]'))[0];
    },
    60000,
  );
  const text = await wd.text(result);
  if (!text.includes('Its tools: greet')) throw new Error(`the bundle's server did not list its tool: ${text}`);
  console.log(`e2e-install: the bundle from a second launch was previewed, installed and started: ${text.trim()}`);
}

/** An unlocked Secret Service for this session (the bundle's sensitive value goes to the
 * keychain), its keyrings in a temporary folder so no real keyring is touched. */
function unlockedKeychain() {
  const keyrings = tempDir('keyrings');
  // Its control socket too: a desktop's own daemon (in the real XDG_RUNTIME_DIR) is left alone;
  // this one answers on the private bus of `dbus-run-session`.
  const out = execFileSync('gnome-keyring-daemon', ['--unlock', '--components=secrets', '--daemonize'], {
    input: 'switchboard-e2e',
    encoding: 'utf8',
    env: { ...process.env, XDG_DATA_HOME: keyrings, XDG_RUNTIME_DIR: keyrings },
  });
  for (const line of out.split('\n')) {
    const [key, ...value] = line.split('=');
    if (key && value.length) process.env[key] = value.join('=');
  }
}

async function main() {
  unlockedKeychain();
  const registryUrl = await fakeRegistry();

  const wd = await launch({ args: ['--open-url', LINK] });
  try {
    await until('the sidebar', () => wd.find('[data-testid="new-conversation"]'));
    await cancelTheLink(wd);
    await browse(wd, registryUrl);
    await installForm(wd);
    await bundle(wd);
  } finally {
    await wd.end().catch(() => {});
  }
  // The window's process holds the profile until it has exited.
  const list = await until('the CLI on the closed profile', () => {
    try {
      return cli('servers', 'list');
    } catch {
      return undefined;
    }
  });
  if (list.includes('linked-everything')) throw new Error(`the cancelled link saved its server:\n${list}`);
  if (!list.includes('greeter')) throw new Error(`the bundle's server is not configured:\n${list}`);
  if (cli('servers', 'export', '--with-secrets', '--yes').includes(SECRET)) throw new Error('the cancelled link left its value');
  console.log('e2e-install: after the window closed, `servers list` has greeter and not the cancelled link');
}

await run(main);
