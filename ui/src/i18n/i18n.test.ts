import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { ERROR_KINDS } from '../api';
import { resetAppState } from '../test/reset';
import en from './en';
import {
  detectLang,
  format,
  getLang,
  initI18n,
  langFromLocale,
  setLang,
  t,
  type Placeholders,
} from './index.svelte';
import zhCN from './zh-CN';

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

beforeEach(() => resetAppState());
afterEach(() => vi.restoreAllMocks());

describe('the catalogues', () => {
  test('every English key exists in Simplified Chinese and vice versa', () => {
    expect(Object.keys(zhCN).sort()).toEqual(Object.keys(en).sort());
  });

  test('no message is empty', () => {
    for (const [key, value] of [...Object.entries(en), ...Object.entries(zhCN)]) {
      expect(value.trim(), key).not.toBe('');
    }
  });

  test('both languages use the same placeholders for each key', () => {
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      expect(placeholders(zhCN[key]), key).toEqual(placeholders(en[key]));
    }
  });

  test('every error kind has a message in both languages', () => {
    for (const kind of ERROR_KINDS) {
      expect(en, kind).toHaveProperty([`error.${kind}`]);
      expect(zhCN, kind).toHaveProperty([`error.${kind}`]);
    }
  });

  test('a Chinese message is not left in English', () => {
    const same = (Object.keys(en) as (keyof typeof en)[]).filter(
      (key) => zhCN[key] === en[key] && /[a-z]{3,}/i.test(en[key].replace(/\{\w+\}/g, '')),
    );
    expect(same).toEqual(['app.name', 'serverForm.searchTavily', 'serverForm.url', 'providerForm.baseUrl', 'export.format.md', 'export.format.html']);
  });
});

describe('t', () => {
  test('substitutes placeholders', () => {
    expect(t('sidebar.newChatHint', { shortcut: 'Ctrl+N' })).toBe('New chat (Ctrl+N)');
    expect(t('conversation.rename', { title: 'Plans' })).toBe('Rename “Plans”');
    expect(format('{a} and {b} but not {c}', { a: 1, b: 'two' })).toBe('1 and two but not {c}');
  });

  test('follows the current language', () => {
    expect(t('sidebar.newChat')).toBe('New chat');
    setLang('zh-CN');
    expect(t('sidebar.newChat')).toBe('新对话');
    expect(t('conversation.rename', { title: '计划' })).toBe('重命名“计划”');
  });

  test('rejects unknown keys and missing params at compile time', () => {
    // @ts-expect-error: not a key of the catalogue
    expect(() => t('no.such.key')).not.toThrow();
    // @ts-expect-error: this message needs {title}
    t('conversation.rename');
    const names: Placeholders<'{a} and {b}'> = 'b';
    expect(names).toBe('b');
  });
});

describe('the language', () => {
  test('defaults to Simplified Chinese for any zh locale and to English otherwise', () => {
    expect(langFromLocale('zh')).toBe('zh-CN');
    expect(langFromLocale('zh-TW')).toBe('zh-CN');
    expect(langFromLocale('zh-Hans-CN')).toBe('zh-CN');
    expect(langFromLocale('en-GB')).toBe('en');
    expect(langFromLocale('fr')).toBe('en');
    expect(langFromLocale(undefined)).toBe('en');
  });

  test('follows navigator.language when nothing is saved', () => {
    localStorage.clear();
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('zh-CN');
    expect(detectLang()).toBe('zh-CN');
    initI18n();
    expect(getLang()).toBe('zh-CN');
    expect(document.documentElement.lang).toBe('zh-CN');
  });

  test('a saved choice wins over navigator.language', () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('zh-CN');
    localStorage.setItem('switchboard.lang', 'en');
    expect(detectLang()).toBe('en');
  });

  test('setLang saves the choice and updates <html lang>', () => {
    setLang('zh-CN');
    expect(localStorage.getItem('switchboard.lang')).toBe('zh-CN');
    expect(document.documentElement.lang).toBe('zh-CN');
  });
});
