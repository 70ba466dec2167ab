// Benchmark: a ~5,000-token Markdown answer (prose, code, tables, task lists, math) streamed
// into the renderer at 200 tokens/s, i.e. ~4 tokens per 60 Hz frame, in Chromium. Reports the
// median, p95 and worst time of one frame's update (render + sanitize + DOM + layout) and the
// time to render the finished answer at once. Run: node browser/markdown-stream.mjs
// (needs /usr/bin/chromium; nothing is downloaded).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { build } from 'vite';

const here = new URL('.', import.meta.url).pathname;
const out = mkdtempSync(join(tmpdir(), 'md-bench-'));
await build({
  configFile: false,
  logLevel: 'warn',
  // The Markdown loader (lib/markdown/assets.svelte.ts) uses Svelte's runes.
  plugins: [svelte()],
  build: {
    outDir: out,
    emptyOutDir: true,
    lib: { entry: join(here, 'markdown-entry.ts'), formats: ['iife'], name: 'mdbench', fileName: () => 'bench.js' },
  },
});

function answer() {
  const para =
    'Streaming **Markdown** stays smooth: `inline code`, a [link](https://example.com/docs), ' +
    'some *emphasis* and math such as $a^2 + b^2 = c^2$ or $\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}$. ';
  const parts = [];
  for (let i = 0; parts.join('').length < 20000; i++) {
    parts.push(`## Step ${i + 1}\n\n${para.repeat(3)}\n\n`);
    parts.push('```rust\nfn area(r: f64) -> f64 {\n    // the area of a circle\n    std::f64::consts::PI * r * r\n}\n```\n\n');
    parts.push('| tool | calls | ms |\n|---|--:|--:|\n| echo | 3 | 12 |\n| fetch | 1 | 240 |\n\n');
    parts.push('- [x] read the file\n- [ ] write the summary\n\n$$\n\\int_0^1 x^2\\,dx = \\frac{1}{3}\n$$\n\n');
  }
  return parts.join('');
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const page = await browser.newPage();
  await page.setContent('<!doctype html><html><body></body></html>');
  await page.addScriptTag({ content: readFileSync(join(out, 'bench.js'), 'utf8') });
  await page.evaluate(() => window.benchReady);
  const doc = answer();
  const runs = [];
  for (let run = 0; run < 3; run++) runs.push(await page.evaluate((d) => window.benchStream(d, 4), doc));
  const frames = runs.flatMap((r) => r.frames).sort((a, b) => a - b);
  const full = runs.map((r) => r.full).sort((a, b) => a - b);
  const fmt = (ms) => `${ms.toFixed(2)} ms`;
  console.log(`answer: ${doc.length} chars (~${Math.round(doc.length / 4)} tokens), ${runs[0].frames.length} frames per run, 3 runs`);
  console.log(`one frame's update: median ${fmt(quantile(frames, 0.5))}, p95 ${fmt(quantile(frames, 0.95))}, worst ${fmt(frames.at(-1))}`);
  console.log(`whole answer at once: median ${fmt(full[1])}`);
} finally {
  await browser.close();
  rmSync(out, { recursive: true, force: true });
}
