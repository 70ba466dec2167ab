import { describe, expect, test } from 'vitest';
import { cardStatus, resultText } from './toolCall';

describe('resultText', () => {
  test('reads resources in the engine’s shape: text bodies as text, blobs as their URI', () => {
    expect(
      resultText({
        content: [
          { type: 'text', text: 'Here it is:' },
          { type: 'resource', uri: 'demo://doc.md', mime: 'text/markdown', body: { kind: 'text', value: '# Title' } },
          { type: 'resource', uri: 'demo://pic.png', mime: 'image/png', body: { kind: 'blob', value: 'AAAA' } },
          { type: 'resource_link', uri: 'demo://other', name: 'other', title: 'Other doc', description: null, mime: null, size: null },
        ],
        structured: null,
        is_error: false,
      }),
    ).toBe('Here it is:\n# Title\n<demo://pic.png>\nOther doc <demo://other>');
  });

  test('falls back to the structured result when there is no text', () => {
    expect(resultText({ content: [], structured: { temperature: 21 }, is_error: false })).toBe('{\n  "temperature": 21\n}');
  });
});

describe('cardStatus', () => {
  test('a result the engine marks denied shows as denied, not failed', () => {
    const denied = { content: [{ type: 'text', text: 'The user denied this tool call.' }], structured: null, is_error: true, denied: true };
    expect(cardStatus({ kind: 'done', content: denied, isError: true })).toEqual({ state: 'denied' });
  });

  test('a failed result without the mark stays a failure, and a truthy non-boolean mark is not one', () => {
    const failed = { content: [{ type: 'text', text: 'boom' }], structured: null, is_error: true };
    expect(cardStatus({ kind: 'done', content: failed, isError: true })).toMatchObject({ state: 'done', result: { is_error: true } });
    expect(cardStatus({ kind: 'done', content: { ...failed, denied: 'yes' }, isError: true }).state).toBe('done');
    expect(cardStatus({ kind: 'done', content: null, isError: false }).state).toBe('done');
  });
});
