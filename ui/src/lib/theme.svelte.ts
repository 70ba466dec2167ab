// Light/dark theme. "system" follows `prefers-color-scheme` (no `data-theme` on <html>);
// "light"/"dark" force it through `data-theme`, which app.css keys its variables on.
export type ThemeSetting = 'system' | 'light' | 'dark';

export const THEME_STORAGE_KEY = 'switchboard.theme';
export const THEME_SETTINGS: readonly ThemeSetting[] = ['system', 'light', 'dark'];

function isThemeSetting(value: unknown): value is ThemeSetting {
  return typeof value === 'string' && (THEME_SETTINGS as readonly string[]).includes(value);
}

function storedTheme(): ThemeSetting {
  try {
    const value = globalThis.localStorage?.getItem(THEME_STORAGE_KEY);
    return isThemeSetting(value) ? value : 'system';
  } catch {
    return 'system';
  }
}

let setting = $state<ThemeSetting>(storedTheme());

function applyToDocument(value: ThemeSetting): void {
  if (typeof document === 'undefined') return;
  const root = document.documentElement;
  if (value === 'system') root.removeAttribute('data-theme');
  else root.setAttribute('data-theme', value);
}

export function getTheme(): ThemeSetting {
  return setting;
}

/** Switches the theme, remembers it and applies it to <html>. */
export function setTheme(value: ThemeSetting): void {
  setting = value;
  try {
    globalThis.localStorage?.setItem(THEME_STORAGE_KEY, value);
  } catch {
    // Storage may be unavailable; the choice then lasts for this session only.
  }
  applyToDocument(value);
}

/** Re-reads the saved setting (at start-up and in tests) and applies it. */
export function initTheme(): void {
  setting = storedTheme();
  applyToDocument(setting);
}
