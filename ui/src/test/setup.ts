import '@testing-library/jest-dom/vitest';
import { clearMocks } from '@tauri-apps/api/mocks';
import { cleanup } from '@testing-library/svelte';
import { afterEach, beforeAll, expect } from 'vitest';
import { markdownAssets } from '../lib/markdown/assets.svelte';

// The app loads the Markdown pipeline, highlight.js and KaTeX on demand; tests see them loaded,
// except the `*.lazy.test.ts` files, which test the loading itself.
beforeAll(async () => {
  if (!String(expect.getState().testPath).endsWith('.lazy.test.ts')) await markdownAssets.loadAll();
});

afterEach(() => {
  cleanup();
  clearMocks();
  localStorage.clear();
});
