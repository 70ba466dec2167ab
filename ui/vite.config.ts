/// <reference types="vitest/config" />
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

// The one Node global used here (declared rather than pulling @types/node into the browser code's types).
declare const process: { env: Record<string, string | undefined> };

// Tauri loads `dist/` from its own origin and enforces a strict CSP
// (`script-src 'self'; style-src 'self'`): everything must be emitted as files.
export default defineConfig({
  plugins: [svelte()],
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
    // Never turn assets into inline data (keeps the CSP story simple).
    assetsInlineLimit: 0,
  },
  // Svelte 5 ships a server build under the `node` condition; component tests need the browser one.
  resolve: process.env.VITEST ? { conditions: ['browser'] } : undefined,
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.ts'],
  },
});
