import { expect, test } from 'vitest';
import { conversationHref, parseHash } from './router.svelte';

test('hashes map to routes and anything unknown goes to the chat', () => {
  expect(parseHash('')).toEqual({ name: 'chat' });
  expect(parseHash('#/')).toEqual({ name: 'chat' });
  expect(parseHash('#/c/abc-123')).toEqual({ name: 'conversation', id: 'abc-123' });
  expect(parseHash('#/settings')).toEqual({ name: 'settings', tab: 'providers' });
  expect(parseHash('#/settings/providers')).toEqual({ name: 'settings', tab: 'providers' });
  expect(parseHash('#/settings/servers')).toEqual({ name: 'settings', tab: 'servers' });
  expect(parseHash('#/settings/general')).toEqual({ name: 'settings', tab: 'general' });
  expect(parseHash('#/settings/nope')).toEqual({ name: 'chat' });
  expect(parseHash('#/whatever')).toEqual({ name: 'chat' });
});

test('conversation links round-trip ids that need escaping', () => {
  expect(parseHash(conversationHref('a/b c'))).toEqual({ name: 'conversation', id: 'a/b c' });
});
