// Artifact previews in a real Chromium (`/usr/bin/chromium`), in a frame like the app's: a
// document of its own served with the CSP an App with no declared domains gets (the policy
// `csp_header` builds in src-tauri/engine/src/mcp/client/app_documents.rs, copied below and
// checked against it by app_documents_tests.rs), in an
// `<iframe sandbox="allow-scripts">`. A Mermaid diagram is drawn as SVG with no CSP violation;
// a hostile HTML artifact reaches neither the network, nor its parent, nor Tauri's IPC.
// Run: npm run test:artifact-browser
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { build } from 'vite';

const here = new URL('.', import.meta.url).pathname;
const CSP = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  "img-src data: blob:",
  "font-src data:",
  "media-src data: blob:",
  "connect-src 'none'",
  "frame-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
  "worker-src 'none'",
].join('; ');

const out = mkdtempSync(join(tmpdir(), 'artifact-'));
await build({
  configFile: false,
  logLevel: 'warn',
  build: { outDir: out, emptyOutDir: true, lib: { entry: join(here, 'artifact-entry.ts'), formats: ['es'], fileName: () => 'artifact.mjs' } },
});
const { artifactDocument } = await import(pathToFileURL(join(out, 'artifact.mjs')).href);
const mermaid = readFileSync(join(here, '../node_modules/mermaid/dist/mermaid.min.js'), 'utf8');

const leaks = [];
const HOSTILE = `<!doctype html><p id="p">hostile</p><script>
const tried = [];
fetch('/leak?fetch').then(() => tried.push('fetch'), () => {});
try { new Image().src = '/leak?img'; } catch {}
try { parent.document.body.dataset.owned = 'yes'; tried.push('parent'); } catch {}
try { top.location.href = '/leak?navigate'; } catch {}
try { if (window.__TAURI_INTERNALS__ || parent.__TAURI_INTERNALS__) tried.push('ipc'); } catch {}
try { localStorage.setItem('x', '1'); tried.push('storage'); } catch {}
parent.postMessage({ type: 'hostile-done', tried }, '*');
</script>`;
const docs = {
  '/frame/mermaid': artifactDocument('mermaid', 'graph TD\n  A[Ask] -->|tool call| B(Answer)\n  B --> C{Done?}', mermaid),
  '/frame/hostile': artifactDocument('html', HOSTILE),
};
const parentPage = (frame) => `<!doctype html><body><iframe sandbox="allow-scripts" src="${frame}"></iframe><script>
window.said = [];
addEventListener('message', (e) => window.said.push(e.data));
</script></body>`;
const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/leak') {
    leaks.push(url.search);
    res.writeHead(204).end();
  } else if (docs[url.pathname]) {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': CSP }).end(docs[url.pathname]);
  } else if (url.pathname.startsWith('/parent/')) {
    res.writeHead(200, { 'Content-Type': 'text/html' }).end(parentPage(`/frame/${url.pathname.slice(8)}`));
  } else {
    res.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const failures = [];
try {
  const tab = await browser.newPage();
  const violations = [];
  tab.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  await tab.goto(`${base}/parent/mermaid`);
  await tab.waitForFunction(() => window.said.length > 0, null, { timeout: 30_000 });
  const said = await tab.evaluate(() => window.said[0]);
  const frame = tab.frames().find((f) => f.url().endsWith('/frame/mermaid'));
  const svg = frame ? await frame.evaluate(() => document.querySelector('svg')?.outerHTML.length ?? 0) : 0;
  if (!said?.ok) failures.push(`the diagram was not drawn: ${JSON.stringify(said)}`);
  if (svg < 500) failures.push(`no diagram in the frame (${svg} characters of SVG)`);
  if (violations.length) failures.push(`CSP violations while drawing: ${violations.join(' | ')}`);
  console.log(`artifact: mermaid drawn (${svg} characters of SVG), ${violations.length} CSP violations`);

  const hostile = await browser.newPage();
  await hostile.goto(`${base}/parent/hostile`);
  await hostile.waitForFunction(() => window.said.length > 0, null, { timeout: 10_000 });
  await hostile.waitForTimeout(500);
  const tried = await hostile.evaluate(() => window.said[0].tried);
  const owned = await hostile.evaluate(() => document.body.dataset.owned ?? null);
  if (tried.length) failures.push(`the hostile artifact got through: ${tried.join(', ')}`);
  if (owned) failures.push('the hostile artifact changed its parent');
  if (leaks.length) failures.push(`the hostile artifact reached the network: ${leaks.join(', ')}`);
  if (!hostile.url().endsWith('/parent/hostile')) failures.push(`the parent was navigated to ${hostile.url()}`);
  console.log(`artifact: hostile HTML reached nothing (${leaks.length} requests, parent unchanged)`);
} finally {
  await browser.close();
  server.close();
  rmSync(out, { recursive: true, force: true });
}
if (failures.length) {
  console.error(failures.map((f) => `artifact: FAILED ${f}`).join('\n'));
  process.exit(1);
}
