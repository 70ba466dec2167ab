// A build of one of the browser checks' entries (a folder with an index.html next to this
// file), served on 127.0.0.1 for Chromium: the real app's Vite config, a temporary output
// folder, and a static server that serves nothing outside it.
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { build } from 'vite';

const here = new URL('.', import.meta.url).pathname;
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.woff2': 'font/woff2' };

/** Builds `browser/<folder>` and serves it: the page's URL, and `close` to stop and clean up. */
export async function servedBuild(folder) {
  const out = mkdtempSync(join(tmpdir(), `${folder}-`));
  await build({
    configFile: join(here, '..', 'vite.config.ts'),
    root: join(here, folder),
    logLevel: 'warn',
    build: { outDir: out, emptyOutDir: true },
  });
  const server = createServer((req, res) => {
    const path = join(out, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!path.startsWith(out) || !statSync(path, { throwIfNoEntry: false })?.isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' });
    createReadStream(path).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/index.html`,
    close() {
      server.close();
      rmSync(out, { recursive: true, force: true });
    },
  };
}
