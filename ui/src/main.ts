import './app.css';
import { mount } from 'svelte';
import App from './App.svelte';
import { initI18n } from './i18n/index.svelte';
import { initTheme } from './lib/theme.svelte';

initI18n();
initTheme();

const target = document.getElementById('app');
if (!target) throw new Error('#app is missing from index.html');

export default mount(App, { target });
