import { beforeEach, expect, test } from 'vitest';
import { resetAppState } from '../test/reset';
import { getTheme, initTheme, setTheme } from './theme.svelte';

beforeEach(() => resetAppState());

test('the theme setting writes data-theme on <html>, and system removes it', () => {
  setTheme('dark');
  expect(document.documentElement.getAttribute('data-theme')).toBe('dark');
  setTheme('light');
  expect(document.documentElement.getAttribute('data-theme')).toBe('light');
  setTheme('system');
  expect(document.documentElement.hasAttribute('data-theme')).toBe(false);
});

test('the saved theme is applied at start-up', () => {
  localStorage.setItem('switchboard.theme', 'dark');
  initTheme();
  expect(getTheme()).toBe('dark');
  expect(document.documentElement.getAttribute('data-theme')).toBe('dark');
});

test('an unknown saved theme falls back to system', () => {
  localStorage.setItem('switchboard.theme', 'purple');
  initTheme();
  expect(getTheme()).toBe('system');
  expect(document.documentElement.hasAttribute('data-theme')).toBe(false);
});
