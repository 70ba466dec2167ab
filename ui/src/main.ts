import './app.css';
import { mount } from 'svelte';
import App from './App.svelte';
import QuickApp from './quick/QuickApp.svelte';
import { initI18n } from './i18n/index.svelte';
import { isQuickWindow } from './lib/desktop.svelte';
import { markdownAssets } from './lib/markdown/assets.svelte';
import { initTheme } from './lib/theme.svelte';

initI18n();
initTheme();

const target = document.getElementById('app');
if (!target) throw new Error('#app is missing from index.html');

// The quick window (src-tauri/src/desktop/quick.rs) loads this same page.
const app = mount(isQuickWindow() ? QuickApp : App, { target });

// The first screen needs no Markdown; opening a conversation does. Fetch the pipeline once the
// start-up work is done, so a conversation opened later does not show plain text first.
setTimeout(() => markdownAssets.pipeline.request(), 1000);

export default app;
