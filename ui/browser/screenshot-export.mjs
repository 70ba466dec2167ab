// The screenshot of the Export dialog in the README (docs/screenshots/export-dialog.png): the
// built UI (`ui/dist`, so run `npm run build` first) served on 127.0.0.1, with the fake backend
// of the component tests injected before the app starts, in Chromium (`/usr/bin/chromium`).
// The dialog is opened from the sidebar and set to Markdown for every conversation, without
// reasoning, into a folder. Run: npm run screenshot:export
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { chromium } from 'playwright-core';
import { build } from 'vite';

const here = new URL('.', import.meta.url).pathname;
const dist = join(here, '..', 'dist');
const target = join(here, '..', '..', 'docs', 'screenshots', 'export-dialog.png');
if (!existsSync(join(dist, 'index.html'))) {
  console.error('ui/dist is missing: run `npm run build` (or `make ui`) first');
  process.exit(1);
}

const out = mkdtempSync(join(tmpdir(), 'shot-'));
await build({
  configFile: false,
  logLevel: 'warn',
  build: {
    outDir: out,
    emptyOutDir: true,
    lib: { entry: join(here, 'screenshot-entry.ts'), formats: ['iife'], name: 'fake', fileName: () => 'fake.js' },
  },
});

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.woff2': 'font/woff2', '.png': 'image/png' };
const server = createServer((req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
  const file = join(dist, path === '/' ? 'index.html' : path);
  if (!file.startsWith(dist) || !existsSync(file)) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
  res.end(readFileSync(file));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/`;

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.addInitScript({ content: readFileSync(join(out, 'fake.js'), 'utf8') });
  await page.goto(url);
  await page.getByTestId('conversation-row').first().waitFor();
  await page.getByTestId('open-export').click();
  const dialog = page.getByRole('dialog', { name: 'Export conversations' });
  await dialog.waitFor();
  await page.getByTestId('export-format-md').check();
  await page.getByTestId('export-scope-all').check();
  await page.getByTestId('export-no-reasoning').check();
  await page.getByTestId('export-path').fill('/home/me/Documents/switchboard-export');
  await page.getByTestId('export-start').focus();
  mkdirSync(join(target, '..'), { recursive: true });
  await page.screenshot({ path: target });
  if (errors.length > 0) throw new Error(`the page reported errors: ${errors.join('; ')}`);
  console.log(`wrote ${target}`);
} finally {
  await browser.close();
  server.close();
  rmSync(out, { recursive: true, force: true });
}
