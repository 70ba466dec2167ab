/// <reference types="vitest/config" />
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig, type Plugin } from 'vite';

// The one Node global used here (declared rather than pulling @types/node into the browser code's types).
declare const process: { env: Record<string, string | undefined> };

// KaTeX's stylesheet offers each font as woff2, woff and ttf; every engine the app runs in
// (WebKitGTK, WebView2, WKWebView, and Chromium for the tests) takes woff2, so only those fonts
// are kept (20 files instead of 60, ~300 KB instead of ~1 MB in the bundle).
const katexWoff2Only: Plugin = {
  name: 'katex-woff2-only',
  enforce: 'pre',
  transform(code, id) {
    if (!/katex[\\/]dist[\\/]katex(\.min)?\.css/.test(id)) return null;
    const kept = code.replace(/,\s*url\([^)]*\.woff\)\s*format\("woff"\)\s*,\s*url\([^)]*\.ttf\)\s*format\("truetype"\)/g, '');
    // A KaTeX whose stylesheet no longer matches would bring the ~1 MB of fonts back unseen.
    if (kept === code) this.error('katex-woff2-only: no woff/ttf font list found in katex.css');
    return kept;
  },
};

// Tauri loads `dist/` from its own origin and enforces a strict CSP
// (`script-src 'self'; style-src 'self'`): everything must be emitted as files.
export default defineConfig({
  plugins: [svelte(), katexWoff2Only],
  base: './',
  clearScreen: false,
  server: {
    host: '127.0.0.1',
    port: 5173,
    strictPort: true,
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Never turn assets into inline data (keeps the CSP story simple), except the UI's own
    // icons: CSS masks of a few hundred bytes each, shown from the first frame (img-src allows
    // data:), where files would each be a request at start-up.
    assetsInlineLimit: (file) => /[\\/]src[\\/]icons[\\/][a-z-]+\.svg$/.test(file),
  },
  // Svelte 5 ships a server build under the `node` condition; component tests need the browser one.
  resolve: process.env.VITEST ? { conditions: ['browser'] } : undefined,
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.ts'],
  },
});
