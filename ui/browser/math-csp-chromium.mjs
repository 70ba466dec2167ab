// Math as models write it, in a real Chromium (`/usr/bin/chromium`) under the window's own
// style policy (`style-src 'self'`, from tauri.conf.json): display math inside a sentence keeps
// its paragraph whole, every formula is typeset (none left as raw TeX), and KaTeX's output
// causes no CSP violation. Run: npm run test:math-browser
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { chromium } from 'playwright-core';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { build } from 'vite';

const here = new URL('.', import.meta.url).pathname;
const conf = JSON.parse(readFileSync(join(here, '../../tauri.conf.json'), 'utf8'));
const csp = Object.entries(conf.app.security.csp)
  .map(([k, v]) => `${k} ${v}`)
  .join('; ');
const out = mkdtempSync(join(tmpdir(), 'math-'));
await build({
  configFile: false,
  logLevel: 'warn',
  plugins: [svelte()],
  build: {
    outDir: out,
    emptyOutDir: true,
    assetsInlineLimit: 0,
    lib: { entry: join(here, 'math-entry.ts'), formats: ['iife'], name: 'math', fileName: () => 'math.js' },
  },
});
const css = readdirSync(out).filter((f) => f.endsWith('.css'));
const page = `<!doctype html><html><head>${css.map((f) => `<link rel="stylesheet" href="/${f}">`).join('')}
<script src="/math.js"></script></head><body></body></html>`;
const types = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf' };
const server = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  const headers = { 'Content-Security-Policy': csp };
  if (path === '/') {
    res.writeHead(200, { ...headers, 'Content-Type': 'text/html' }).end(page);
    return;
  }
  try {
    const body = readFileSync(join(out, path.replace(/^\/+/, '').replace(/\.\.+/g, '')));
    res.writeHead(200, { ...headers, 'Content-Type': types[extname(path)] ?? 'application/octet-stream' }).end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/`;

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
let failed = false;
try {
  const tab = await browser.newPage();
  const violations = [];
  await tab.exposeFunction('reportViolation', (v) => violations.push(v));
  await tab.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      window.reportViolation(`${e.effectiveDirective}: ${e.sourceFile}:${e.lineNumber} ${e.sample}`),
    );
  });
  const errors = [];
  tab.on('pageerror', (e) => errors.push(e.message));
  await tab.goto(url);
  const outcome = await tab.evaluate(() => window.runMath());
  const [euler] = outcome.paragraphs;
  const problems = [
    ...errors.map((e) => `page error: ${e}`),
    ...violations.map((v) => `CSP violation: ${v}`),
    ...outcome.raw.map((tex) => `left as raw TeX: ${tex}`),
    ...(euler.length === 1 && euler[0].startsWith('Euler:') && euler[0].endsWith('inline')
      ? []
      : [`the Euler sentence was broken into ${JSON.stringify(euler)}`]),
    ...(outcome.katex >= 14 ? [] : [`only ${outcome.katex} formulas typeset`]),
  ];
  for (const p of problems) console.log(p);
  failed = problems.length > 0;
  console.log(failed ? `${problems.length} problems` : `${outcome.katex} formulas typeset under the window's CSP, no violation`);
} finally {
  await browser.close();
  server.close();
  rmSync(out, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
