// The XSS corpus in a real browser: every payload is rendered by the Markdown pipeline in
// Chromium (`/usr/bin/chromium`), every element is hovered, focused and clicked, and the check
// fails if any payload ran (`__xss` called, a dialog opened, the page navigated) or left
// something dangerous in the DOM. Run: npm run test:xss-browser
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { build } from 'vite';

const here = new URL('.', import.meta.url).pathname;
const out = mkdtempSync(join(tmpdir(), 'xss-'));
await build({
  configFile: false,
  logLevel: 'warn',
  // The Markdown loader (lib/markdown/assets.svelte.ts) uses Svelte's runes.
  plugins: [svelte()],
  build: {
    outDir: out,
    emptyOutDir: true,
    lib: { entry: join(here, 'xss-entry.ts'), formats: ['iife'], name: 'xss', fileName: () => 'xss.js' },
  },
});

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
let failed = false;
try {
  const page = await browser.newPage();
  const ran = [];
  await page.exposeFunction('reportXss', (id) => ran.push(String(id)));
  page.on('dialog', (dialog) => {
    ran.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  const requests = [];
  page.on('request', (request) => {
    if (!request.url().startsWith('data:') && request.url() !== 'about:blank') requests.push(request.url());
  });
  await page.setContent('<!doctype html><html><head></head><body></body></html>');
  await page.evaluate(() => {
    window.__xss = (id) => window.reportXss(id);
  });
  await page.addScriptTag({ content: readFileSync(join(out, 'xss.js'), 'utf8') });
  const outcome = await page.evaluate(() => window.runXss());
  const url = page.url();
  console.log(`payloads rendered: ${outcome.rendered}; links handed to the opener: ${outcome.opened.length}`);
  const problems = [
    ...ran.map((r) => `executed: ${r}`),
    ...outcome.dangerous.map((d) => `left in the DOM: ${d}`),
    ...requests.map((r) => `requested: ${r}`),
    ...(url === 'about:blank' ? [] : [`navigated to ${url}`]),
    ...outcome.opened.filter((u) => !/^(https?:|mailto:)/.test(u)).map((u) => `opened: ${u}`),
  ];
  for (const p of problems) console.log(p);
  failed = problems.length > 0;
  console.log(failed ? `${problems.length} problems` : 'no payload executed');
} finally {
  await browser.close();
  rmSync(out, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
