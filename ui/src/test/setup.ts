import '@testing-library/jest-dom/vitest';
import { clearMocks } from '@tauri-apps/api/mocks';
import { cleanup, configure } from '@testing-library/svelte';
import { afterEach, beforeAll, expect } from 'vitest';
import { markdownAssets } from '../lib/markdown/assets.svelte';

// Settings, dialogs and the Markdown parts are loaded on demand; the first load in a test file
// also transforms the module, which on a loaded machine can take over the default second.
configure({ asyncUtilTimeout: 5000 });

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
