// The UI's structure rules.
//
// 1. The dependency rule (issue 14): components read and change state through the stores in
//    `lib/`, never by calling the engine themselves — no import of the typed IPC commands
//    (`api.ts`, `apiInstall.ts`, anything under `api/`) and none of `@tauri-apps/*` (the IPC
//    underneath them) in any component, nor in the helper modules beside them in the feature
//    folders.
// 2. No style block written twice: a rule body (its declarations, in any order) of two or more
//    declarations appears in one component only; what several components share is a primitive
//    in `ui/` (each with one variants table) or a component of its feature.
import { describe, expect, test } from 'vitest';

const components = import.meta.glob<string>(['./**/*.svelte'], {
  query: '?raw',
  import: 'default',
  eager: true,
});

/** The TypeScript beside the components (feature folders' helpers), not the stores, the IPC
 * layer, the generated types, the translations or the tests. */
const helpers = import.meta.glob<string>(
  ['./**/*.ts', '!./**/*.test.ts', '!./**/*.d.ts', '!./lib/**', '!./api/**', '!./api*.ts', '!./bindings.ts', '!./i18n/**', '!./test/**'],
  { query: '?raw', import: 'default', eager: true },
);

/** Every module a file imports (static, side-effect and dynamic imports). */
function importsOf(source: string): string[] {
  const found = source.matchAll(/\b(?:from\s*|import\s*\(?\s*)['"]([^'"]+)['"]/g);
  return [...found].map((m) => m[1]!);
}

/** `specifier` resolved from the file at `from` (both relative to `src/`, POSIX). */
function resolve(from: string, specifier: string): string {
  const parts = from.split('/').slice(0, -1);
  for (const part of specifier.split('/')) {
    if (part === '..') parts.pop();
    else if (part !== '.') parts.push(part);
  }
  return parts.join('/');
}

/** Whether the file at `from` importing `specifier` reaches the engine directly: the IPC
 * commands (`src/api.ts`, `src/apiInstall.ts`, `src/api/*`) or Tauri's own packages. */
function reachesEngine(specifier: string, from: string): boolean {
  if (specifier.startsWith('@tauri-apps/')) return true;
  if (!specifier.startsWith('.')) return false;
  return /^\.\/(?:api(?:Install)?(?:\.ts)?|api\/.*)$/.test(resolve(from, specifier));
}

/** The files that break the rule, each with what it imports that it may not. */
function offenders(files: Record<string, string>): string[] {
  return Object.entries(files).flatMap(([path, source]) => {
    const bad = importsOf(source).filter((specifier) => reachesEngine(specifier, path));
    return bad.length ? [`${path} imports ${bad.join(', ')}`] : [];
  });
}

describe('the UI dependency rule', () => {
  test('every component and helper is checked', () => {
    expect(Object.keys(components).length).toBeGreaterThan(40);
    expect(Object.keys(components)).toEqual(
      expect.arrayContaining(['./App.svelte', './chat/ChatPane.svelte', './settings/servers/ServerForm.svelte', './ui/Modal.svelte']),
    );
    expect(Object.keys(helpers)).toContain('./chat/composer/slashMenu.svelte.ts');
    expect(Object.keys(helpers).filter((path) => /^\.\/(lib|api|test|i18n)\/|\.test\.ts$|^\.\/(api|apiInstall|bindings)\.ts$/.test(path))).toEqual([]);
  });

  test('no component or helper imports the IPC commands or Tauri: they go through the lib stores', () => {
    expect(offenders({ ...components, ...helpers }), 'calling the engine directly; move the call into a lib/*.svelte.ts store').toEqual([]);
  });

  test('the check recognises each way of importing the IPC commands or Tauri', () => {
    const source = `
      import * as api from '../api';
      import { toIpcError } from "../api.ts";
      import { installEntry } from '../apiInstall';
      import { listConversations } from '../api/conversations';
      import { commands } from '../../api/commands';
      import type { Conversation } from '../bindings';
      import { chat } from '../lib/chat.svelte';
      import { invoke } from '@tauri-apps/api/core';
      const later = import('../api');
    `;
    const from = './chat/ChatPane.svelte';
    expect(importsOf(source).filter((s) => reachesEngine(s, from))).toEqual([
      '../api',
      '../api.ts',
      '../apiInstall',
      '../api/conversations',
      '@tauri-apps/api/core',
      '../api',
    ]);
    // Two folders down, `../../api/…` is the IPC layer; one folder down it would leave `src/`.
    expect(reachesEngine('../../api/commands', './settings/servers/ServerForm.svelte')).toBe(true);
    expect(reachesEngine('../../api', './chat/composer/Composer.svelte')).toBe(true);
    expect(reachesEngine('./api/commands', './App.svelte')).toBe(true);
    expect(reachesEngine('../../api/commands', './chat/ChatPane.svelte')).toBe(false);
  });

  test('stores, generated types and look-alike names are not mistaken for the IPC layer', () => {
    for (const ok of ['../bindings', '../lib/apiKeys.svelte', '../lib/chat.svelte', './Api.svelte', './api.svelte', '../lib/api/x', 'svelte']) {
      expect(reachesEngine(ok, './chat/ChatPane.svelte'), ok).toBe(false);
    }
  });
});

/** A component's scoped style sheet (what its `<style>` block holds). */
function styleOf(source: string): string {
  return /<style[^>]*>([\s\S]*?)<\/style>/.exec(source)?.[1] ?? '';
}

/** Each rule of a style sheet as its declarations, normalised (trimmed, one space, sorted) and
 * prefixed with the at-rules it sits in; comments dropped. */
function ruleBodies(css: string): string[] {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, '');
  const bodies: string[] = [];
  const context: string[] = [];
  let prelude = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '{') {
      const head = prelude.trim().replace(/\s+/g, ' ');
      prelude = '';
      if (head.startsWith('@')) {
        context.push(head);
        continue;
      }
      const end = text.indexOf('}', i);
      const declarations = text
        .slice(i + 1, end)
        .split(';')
        .map((d) => d.trim().replace(/\s+/g, ' '))
        .filter(Boolean)
        .sort();
      bodies.push([...context, declarations.join('; ')].join(' :: '));
      i = end;
    } else if (c === '}') {
      context.pop();
      prelude = '';
    } else {
      prelude += c;
    }
  }
  return bodies;
}

/** Rule bodies of `min` or more declarations found in two or more components, with where. */
function repeatedBodies(files: Record<string, string>, min: number): Map<string, string[]> {
  const where = new Map<string, Set<string>>();
  for (const [path, source] of Object.entries(files)) {
    for (const body of ruleBodies(styleOf(source))) {
      if (body.split('; ').length < min) continue;
      where.set(body, (where.get(body) ?? new Set()).add(path));
    }
  }
  return new Map([...where].filter(([, paths]) => paths.size > 1).map(([body, paths]) => [body, [...paths]]));
}

describe('no style block repeated across components', () => {
  test('the style check reads the components', () => {
    const all = Object.values(components).flatMap((source) => ruleBodies(styleOf(source)));
    expect(all.length).toBeGreaterThan(300);
  });

  test('no rule body of two or more declarations is written in two components', () => {
    const repeats = Object.fromEntries(repeatedBodies(components, 2));
    expect(repeats, 'the same style in several components: use (or add a variant to) a primitive in ui/').toEqual({});
  });

  test('the check sees a repeat whatever the order, spacing or nesting', () => {
    const a = `<style>\n  .x { gap: 8px; display: flex; }\n  @media (width < 600px) { .y { color: red; margin: 0 } }\n</style>`;
    const b = `<style>\n  /* same */ .z {\n    display:  flex;\n    gap: 8px\n  }\n  @media (width < 600px) { .w { margin: 0; color: red; } }\n  .v { color: red; margin: 0 }\n</style>`;
    expect([...repeatedBodies({ a, b }, 2).keys()]).toEqual(['display: flex; gap: 8px', '@media (width < 600px) :: color: red; margin: 0']);
    expect(ruleBodies(styleOf(b))).toHaveLength(3);
    expect(repeatedBodies({ a, b: a.replace('gap: 8px', 'gap: 6px') }, 2).size).toBe(1);
  });
});
