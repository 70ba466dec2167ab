// Reactive i18n: the current language is rune state, so anything that calls `t` in a template
// or `$derived` re-renders when the language changes.
import en from './en';
import zhCN from './zh-CN';

export type Lang = 'en' | 'zh-CN';
export type Catalogue = typeof en;
export type MessageKey = keyof Catalogue;

/** The names of the `{placeholders}` in a message. */
export type Placeholders<S extends string> = S extends `${string}{${infer Name}}${infer Rest}`
  ? Name | Placeholders<Rest>
  : never;

/** The keys whose messages have no placeholders. */
export type PlainKey = {
  [K in MessageKey]: [Placeholders<Catalogue[K]>] extends [never] ? K : never;
}[MessageKey];

/** The params `t(key, params)` needs for `key`: none, or one value per placeholder. */
export type ParamsArg<K extends MessageKey> = [Placeholders<Catalogue[K]>] extends [never]
  ? [params?: Record<string, never>]
  : [params: Record<Placeholders<Catalogue[K]>, string | number>];

export const STORAGE_KEY = 'switchboard.lang';
export const LANGS: readonly Lang[] = ['en', 'zh-CN'];

/** Each language's name in itself (deliberately not translated). */
export const LANG_NAMES: Record<Lang, string> = { en: 'English', 'zh-CN': '简体中文' };

export const catalogues: Record<Lang, Record<MessageKey, string>> = { en, 'zh-CN': zhCN };

function isLang(value: unknown): value is Lang {
  return typeof value === 'string' && (LANGS as readonly string[]).includes(value);
}

/** The language a browser locale maps to: any Chinese locale → zh-CN, anything else → en. */
export function langFromLocale(locale: string | undefined | null): Lang {
  return locale && /^zh/i.test(locale) ? 'zh-CN' : 'en';
}

function storedLang(): Lang | null {
  try {
    const value = globalThis.localStorage?.getItem(STORAGE_KEY);
    return isLang(value) ? value : null;
  } catch {
    return null;
  }
}

/** The saved choice, else the system language. */
export function detectLang(): Lang {
  return storedLang() ?? langFromLocale(globalThis.navigator?.language);
}

let current = $state<Lang>(detectLang());

function applyToDocument(lang: Lang): void {
  if (typeof document !== 'undefined') document.documentElement.lang = lang;
}

export function getLang(): Lang {
  return current;
}

/** Switches the language, remembers it and updates `<html lang>`. */
export function setLang(lang: Lang): void {
  current = lang;
  try {
    globalThis.localStorage?.setItem(STORAGE_KEY, lang);
  } catch {
    // Storage may be unavailable; the choice then lasts for this session only.
  }
  applyToDocument(lang);
}

/** Re-reads the saved/system language (at start-up and in tests) and applies it to the document. */
export function initI18n(): void {
  current = detectLang();
  applyToDocument(current);
}

/** Replaces `{name}` with `params.name`; unknown placeholders are left as they are. */
export function format(template: string, params?: Record<string, string | number>): string {
  if (!params) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(params, name) ? String(params[name]) : whole,
  );
}

/** The message for `key` in the current language, with its placeholders filled in. */
export function t<K extends MessageKey>(key: K, ...[params]: ParamsArg<K>): string {
  const template = catalogues[current][key] ?? en[key];
  return format(template, params as Record<string, string | number> | undefined);
}
