import './app.css';
import { mount } from 'svelte';
import App from './App.svelte';
import { initI18n } from './i18n/index.svelte';
import { markdownAssets } from './lib/markdown/assets.svelte';
import { initTheme } from './lib/theme.svelte';

initI18n();
initTheme();

const target = document.getElementById('app');
if (!target) throw new Error('#app is missing from index.html');

const app = mount(App, { target });

// The first screen needs no Markdown; opening a conversation does. Fetch the pipeline once the
// start-up work is done, so a conversation opened later does not show plain text first.
setTimeout(() => markdownAssets.pipeline.request(), 1000);

export default app;
