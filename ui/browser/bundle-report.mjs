// What the built UI is made of: builds the app (like `npm run build`, with source maps, into a
// temporary directory) and prints every emitted file with its size and gzip size, then, for each
// JavaScript chunk, the bytes each package or source folder contributes (from the source map).
// The chunk index.html loads first is marked "entry"; everything else is loaded on demand.
// Run: npm run report:bundle (nothing is written to ui/dist).
import { readdirSync, readFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { SourceMapConsumer } from 'source-map-js';
import { build } from 'vite';

const here = new URL('.', import.meta.url).pathname;
const out = mkdtempSync(join(tmpdir(), 'bundle-report-'));
const kb = (n) => `${(n / 1024).toFixed(1)} KB`.padStart(9);

/** Every file under `dir`, as paths relative to it. */
function files(dir) {
  return readdirSync(dir, { recursive: true })
    .map((f) => String(f))
    .filter((f) => statSync(join(dir, f)).isFile());
}

/** The package (node_modules/<name>) or source folder a source-map source belongs to. */
function owner(source) {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
  if (pkg) return pkg[1];
  const src = /(?:^|\/)src\/(.*)$/.exec(source);
  if (!src) return source;
  const parts = src[1].split('/');
  return parts.length > 1 ? `src/${parts.slice(0, -1).join('/')}/` : `src/${parts[0]}`;
}

/** Bytes of `code` attributed to each owner through its source map. */
function contributors(code, map) {
  const consumer = new SourceMapConsumer(map);
  const lines = code.split('\n');
  const bytes = new Map();
  let last = null;
  const add = (who, n) => bytes.set(who, (bytes.get(who) ?? 0) + n);
  consumer.eachMapping((m) => {
    if (last && last.generatedLine === m.generatedLine) add(last.who, m.generatedColumn - last.generatedColumn);
    else if (last) add(last.who, (lines[last.generatedLine - 1]?.length ?? 0) - last.generatedColumn);
    last = { generatedLine: m.generatedLine, generatedColumn: m.generatedColumn, who: m.source ? owner(m.source) : '(generated)' };
  });
  if (last) add(last.who, (lines[last.generatedLine - 1]?.length ?? 0) - last.generatedColumn);
  return [...bytes].sort((a, b) => b[1] - a[1]);
}

try {
  await build({
    configFile: join(here, '..', 'vite.config.ts'),
    root: join(here, '..'),
    logLevel: 'warn',
    build: { outDir: out, emptyOutDir: true, sourcemap: true, reportCompressedSize: false },
  });
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  const all = files(out).filter((f) => !f.endsWith('.map'));
  const rows = all.map((f) => {
    const body = readFileSync(join(out, f));
    return { f, size: body.length, gzip: gzipSync(body, { level: 9 }).length, entry: html.includes(f) && f !== 'index.html' };
  });
  const sum = (xs) => xs.reduce((n, r) => n + r.size, 0);
  const gz = (xs) => xs.reduce((n, r) => n + r.gzip, 0);
  const code = rows.filter((r) => /\.(js|css)$/.test(r.f)).sort((a, b) => b.size - a.size);
  console.log('JavaScript and CSS (size, gzip):');
  for (const r of code) console.log(`${kb(r.size)} ${kb(r.gzip)}  ${r.f}${r.entry ? '  (entry)' : ''}`);
  const entry = rows.filter((r) => r.entry);
  console.log(`loaded by index.html: ${kb(sum(entry))} (gzip ${kb(gz(entry)).trim()})`);
  const fonts = rows.filter((r) => /\.(woff2?|ttf)$/.test(r.f));
  console.log(`fonts: ${fonts.length} files, ${kb(sum(fonts))}; all files: ${rows.length}, ${kb(sum(rows))}`);
  for (const r of code.filter((r) => r.f.endsWith('.js'))) {
    const source = readFileSync(join(out, r.f), 'utf8');
    const map = JSON.parse(readFileSync(join(out, `${r.f}.map`), 'utf8'));
    const parts = contributors(source, map).filter(([, n]) => n >= 2048);
    console.log(`\n${relative('.', r.f)}:`);
    for (const [who, n] of parts) console.log(`${kb(n)}  ${who}`);
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
