import { describe, expect, test } from 'vitest';
import type { Prompt, PromptInfo } from '../bindings';
import {
  attachmentSize,
  expandTemplate,
  filterPrompts,
  promptToComposer,
  slashQuery,
  templateVariables,
  toAttachments,
  uriName,
  type PromptEntry,
} from './mcpContent';

const info = (name: string, title: string | null = null): PromptInfo => ({ name, title, description: null, arguments: [] });

describe('slash commands', () => {
  test('a slash alone at the start of the box starts a query; anything else does not', () => {
    expect(slashQuery('/')).toBe('');
    expect(slashQuery('/sum')).toBe('sum');
    expect(slashQuery('/sum more')).toBeNull();
    expect(slashQuery('hello /sum')).toBeNull();
    expect(slashQuery('')).toBeNull();
  });

  test('prompts are filtered by name prefix first, then name or title, then server', () => {
    const entries: PromptEntry[] = [
      { server: 'everything', prompt: info('args-prompt') },
      { server: 'docs', prompt: info('summarize', 'Summarize a file') },
      { server: 'everything', prompt: info('simple-prompt', 'Simple') },
      { server: 'git', prompt: info('commit-message', 'Write a file commit message') },
    ];
    expect(filterPrompts(entries, '').map((e) => e.prompt.name)).toEqual(['args-prompt', 'summarize', 'simple-prompt', 'commit-message']);
    expect(filterPrompts(entries, 'S').map((e) => e.prompt.name)).toEqual(['summarize', 'simple-prompt', 'args-prompt', 'commit-message']);
    expect(filterPrompts(entries, 'file').map((e) => e.prompt.name)).toEqual(['summarize', 'commit-message']);
    expect(filterPrompts(entries, 'every').map((e) => e.prompt.name)).toEqual(['args-prompt', 'simple-prompt']);
    expect(filterPrompts(entries, 'nothing')).toEqual([]);
  });
});

describe('URI templates', () => {
  test('variables are listed once each, without modifiers', () => {
    expect(templateVariables('demo://resource/dynamic/text/{resourceId}')).toEqual(['resourceId']);
    expect(templateVariables('file:///{+path}{?rev,limit}{&path}{/seg*}{name:3}')).toEqual(['path', 'rev', 'limit', 'seg', 'name']);
  });

  test('simple, reserved, path and query expressions expand as RFC 6570 says', () => {
    expect(expandTemplate('demo://resource/dynamic/text/{resourceId}', { resourceId: '7' })).toBe('demo://resource/dynamic/text/7');
    expect(expandTemplate('x://{name}', { name: 'a b/c' })).toBe('x://a%20b%2Fc');
    expect(expandTemplate('file:///{+path}', { path: 'home/me/a b.txt' })).toBe('file:///home/me/a%20b.txt');
    expect(expandTemplate('x://logs{/year,month}', { year: '2026', month: '11' })).toBe('x://logs/2026/11');
    expect(expandTemplate('x://search{?q,lang}', { q: '天气', lang: '' })).toBe('x://search?q=%E5%A4%A9%E6%B0%94');
    expect(expandTemplate('x://s{?q}{&page}', { q: 'a', page: '2' })).toBe('x://s?q=a&page=2');
    expect(expandTemplate('x://s{?q}', {})).toBe('x://s');
  });
});

describe('prompts into the composer', () => {
  test('text becomes the composer text and an embedded resource an attachment', () => {
    const prompt: Prompt = {
      description: null,
      messages: [
        { role: 'user', content: { type: 'text', text: 'Please analyze the following resource:' } },
        { role: 'user', content: { type: 'resource', uri: 'demo://resource/dynamic/text/3', mime: 'text/plain', body: { kind: 'text', value: 'Resource 3' } } },
        { role: 'assistant', content: { type: 'text', text: 'Sure.' } },
        { role: 'user', content: { type: 'image', mime: 'image/png', data: 'iVBO' } },
        { role: 'user', content: { type: 'resource_link', uri: 'file:///a.md', name: 'a.md', title: null, description: null, mime: null, size: null } },
      ],
    };
    expect(promptToComposer('everything', 'resource-prompt', prompt)).toEqual({
      text: 'Please analyze the following resource:\n\nAssistant: Sure.\n\na.md: file:///a.md',
      attachments: [
        { server: 'everything', uri: 'demo://resource/dynamic/text/3', name: '3', mimeType: 'text/plain', body: { kind: 'text', value: 'Resource 3' } },
        { server: 'everything', uri: 'prompt://everything/resource-prompt/4', name: 'resource-prompt image 4', mimeType: 'image/png', body: { kind: 'blob', value: 'iVBO' } },
      ],
    });
  });

  test('contents become attachments named after the resource, numbered when several', () => {
    const one = toAttachments('docs', 'Notes', [{ uri: 'file:///n.md', mime: 'text/markdown', body: { kind: 'text', value: '# N' } }]);
    expect(one).toEqual([{ server: 'docs', uri: 'file:///n.md', name: 'Notes', mimeType: 'text/markdown', body: { kind: 'text', value: '# N' } }]);
    const two = toAttachments('docs', 'Dir', [
      { uri: 'file:///d/a', mime: null, body: { kind: 'text', value: 'a' } },
      { uri: 'file:///d/b', mime: null, body: { kind: 'blob', value: 'AAAA' } },
    ]);
    expect(two.map((a) => a.name)).toEqual(['Dir (1)', 'Dir (2)']);
    expect(attachmentSize(two[1]!)).toBe('3 B');
    expect(attachmentSize({ ...one[0]!, body: { kind: 'text', value: 'é'.repeat(1024) } })).toBe('2.0 KB');
    expect(uriName('file:///home/me/My%20Notes.md?x=1')).toBe('My Notes.md');
    expect(uriName('demo://x/')).toBe('x');
  });
});
