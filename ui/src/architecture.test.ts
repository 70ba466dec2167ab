// The UI's dependency rule (issue 14): components read and change state through the stores in
// `lib/`, never by calling the engine themselves — no import of `api.ts` (the typed IPC
// commands) and none of `@tauri-apps/*` (the IPC underneath it) in any component.
import { describe, expect, test } from 'vitest';

const components = import.meta.glob<string>(['./**/*.svelte'], {
  query: '?raw',
  import: 'default',
  eager: true,
});

/** Every module a Svelte file imports (static, side-effect and dynamic imports). */
function importsOf(source: string): string[] {
  const found = source.matchAll(/\b(?:from\s*|import\s*\(?\s*)['"]([^'"]+)['"]/g);
  return [...found].map((m) => m[1]!);
}

/** Whether a module specifier reaches the engine directly: `api.ts` or Tauri's own packages. */
function reachesEngine(specifier: string): boolean {
  return /^\.{1,2}\/(?:.*\/)?api(?:\.ts)?$/.test(specifier) || specifier.startsWith('@tauri-apps/');
}

/** The files that break the rule, each with what it imports that it may not. */
function offenders(files: Record<string, string>): string[] {
  return Object.entries(files).flatMap(([path, source]) => {
    const bad = importsOf(source).filter(reachesEngine);
    return bad.length ? [`${path} imports ${bad.join(', ')}`] : [];
  });
}

describe('the UI dependency rule', () => {
  test('every component is checked', () => {
    expect(Object.keys(components).length).toBeGreaterThan(40);
    expect(Object.keys(components)).toContain('./chat/ChatPane.svelte');
  });

  test('no component imports api.ts or Tauri: they go through the lib stores', () => {
    expect(offenders(components), 'components calling the engine themselves; move the call into a lib/*.svelte.ts store').toEqual([]);
  });

  test('the check recognises each way of importing api.ts or Tauri', () => {
    const source = `
      import * as api from '../api';
      import { toIpcError } from "../api.ts";
      import type { Conversation } from '../bindings';
      import { chat } from '../lib/chat.svelte';
      import { invoke } from '@tauri-apps/api/core';
      const later = import('../api');
    `;
    expect(importsOf(source).filter(reachesEngine)).toEqual(['../api', '../api.ts', '@tauri-apps/api/core', '../api']);
  });

  test('stores and generated types are not mistaken for api.ts', () => {
    for (const ok of ['../bindings', '../lib/apiKeys.svelte', '../lib/chat.svelte', './Api.svelte', 'svelte']) {
      expect(reachesEngine(ok), ok).toBe(false);
    }
  });
});
