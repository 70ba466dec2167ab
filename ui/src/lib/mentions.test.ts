import { expect, test } from 'vitest';
import type { ProviderView } from '../bindings';
import { mentionedModels } from './mentions';

const view = (id: string, name: string) =>
  ({ provider: { id, name, settings: { toolModes: {}, strictTools: false } }, key: { source: null, masked: null } }) as unknown as ProviderView;
const views = [view('p1', 'Ollama'), view('p2', 'My OpenAI')];

test('mentions of known providers become models and leave the text', () => {
  expect(mentionedModels('@ollama/qwen3:8b @my-openai/gpt-4o-mini Explain WAL', views)).toEqual({
    models: [
      { providerId: 'p1', model: 'qwen3:8b' },
      { providerId: 'p2', model: 'gpt-4o-mini' },
    ],
    text: 'Explain WAL',
  });
});

test('a mention in the middle, by id, counted once', () => {
  expect(mentionedModels('Compare @p1/llama3 and @P1/llama3 please', views)).toEqual({
    models: [{ providerId: 'p1', model: 'llama3' }],
    text: 'Compare and please',
  });
});

test('an unknown provider, an e-mail address or a bare @name stay as written', () => {
  for (const text of ['Ask @nobody/model about it', 'mail me at a@b.com/x', '@ollama hello', 'x@ollama/qwen']) {
    expect(mentionedModels(text, views)).toEqual({ models: [], text });
  }
});
