import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test } from 'vitest';
import { currentRoute } from '../lib/router.svelte';
import { installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';
import QuickApp from './QuickApp.svelte';
import { contextPrefix, preview } from './quickContext';

beforeEach(() => resetAppState());

const CODE = 'def add(a, b):\n    return a + b';

function setup(context: { selection: string | null; clipboard: string | null }) {
  return installFakeBackend([], {
    desktop: { context },
    extra: (cmd) => {
      switch (cmd) {
        case 'list_providers':
          return [{ provider: { id: 'p', name: 'fake', settings: { toolModes: {}, strictTools: false } }, key: { source: null, masked: null } }];
        case 'conversation_messages':
        case 'tool_costs':
          return [];
        case 'send_message':
          return null;
        default:
          return undefined;
      }
    },
  });
}

test('the clipboard is offered, sent only once picked, quoted before the question with where it came from', async () => {
  const backend = setup({ selection: null, clipboard: CODE });
  const user = userEvent.setup();
  render(QuickApp);
  const add = await screen.findByTestId('quick-add-clipboard');
  expect(screen.queryByTestId('quick-add-selection')).toBeNull();
  await user.click(add);
  const chip = screen.getByTestId('quick-context-chip');
  expect(chip).toHaveTextContent('From the clipboard: def add(a, b):');
  await user.type(screen.getByTestId('composer'), 'What does this do?');
  await user.keyboard('{Enter}');
  await waitFor(() => expect(backend.callsTo('send_message')).toHaveLength(1));
  expect(backend.callsTo('send_message')[0]!.text).toBe(`From the clipboard:\n\`\`\`\n${CODE}\n\`\`\`\n\nWhat does this do?`);
  expect(screen.queryByTestId('quick-context-chip')).toBeNull();
});

test('nothing from the clipboard or the selection goes with a question unless picked, and a picked chip can be removed', async () => {
  const backend = setup({ selection: 'selected words', clipboard: CODE });
  const user = userEvent.setup();
  render(QuickApp);
  await user.click(await screen.findByTestId('quick-add-selection'));
  const context = screen.getByTestId('quick-context');
  await user.click(within(context).getByRole('button', { name: 'Remove this context' }));
  expect(screen.queryByTestId('quick-context-chip')).toBeNull();
  await user.type(screen.getByTestId('composer'), 'Hello');
  await user.keyboard('{Enter}');
  await waitFor(() => expect(backend.callsTo('send_message')).toHaveLength(1));
  expect(backend.callsTo('send_message')[0]!.text).toBe('Hello');
});

test('"Open in main window" hands the conversation over and leaves the quick window on a new chat', async () => {
  const backend = setup({ selection: null, clipboard: null });
  const user = userEvent.setup();
  render(QuickApp);
  expect(screen.queryByTestId('quick-open-main')).toBeNull();
  await user.type(await screen.findByTestId('composer'), 'Plan my week');
  await user.keyboard('{Enter}');
  await waitFor(() => expect(backend.callsTo('send_message')).toHaveLength(1));
  const id = backend.callsTo('send_message')[0]!.conversationId as string;
  await user.click(await screen.findByTestId('quick-open-main'));
  await waitFor(() => expect(backend.callsTo('open_in_main_window')).toEqual([{ conversationId: id }]));
  expect(currentRoute()).toEqual({ name: 'chat' });
});

test('Escape hides the quick window', async () => {
  const backend = setup({ selection: null, clipboard: null });
  const user = userEvent.setup();
  render(QuickApp);
  await screen.findByTestId('composer');
  await user.keyboard('{Escape}');
  await waitFor(() => expect(backend.callsTo('hide_quick_window')).toHaveLength(1));
});

test('context keeps its own code fences intact by fencing it with a longer one, and chips preview the first line', () => {
  const text = 'see:\n```js\nx()\n```';
  const prefix = contextPrefix([{ source: 'selection', text }], () => 'From the selected text:');
  expect(prefix).toBe(`From the selected text:\n\`\`\`\`\n${text}\n\`\`\`\`\n\n`);
  expect(preview('a'.repeat(60) + '\nsecond', 10)).toBe('aaaaaaaaa…');
});
