import { render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test } from 'vitest';
import ServerTools from './ServerTools.svelte';
import { installFakeBackend } from '../../test/fakeBackend';
import { resetAppState } from '../../test/reset';

beforeEach(() => resetAppState());

const tool = (name: string) => ({
  name,
  title: null,
  description: null,
  input_schema: { type: 'object' },
  output_schema: null,
  annotations: { read_only: null, destructive: null, idempotent: null, open_world: null },
});

test('each tool shows its stored approval policy and a change is saved, or cleared to the default', async () => {
  const backend = installFakeBackend([], {
    extra: (cmd) => {
      if (cmd === 'tool_policies') return { echo: 'allow' };
      if (cmd === 'set_tool_policy') return null;
      return undefined;
    },
  });
  const user = userEvent.setup();
  render(ServerTools, { server: 'everything', tools: [tool('echo'), tool('get-sum')] });
  const selects = screen.getAllByTestId('tool-policy');
  await waitFor(() => expect(selects[0]).toHaveValue('allow'));
  expect(selects[1]).toHaveValue('');
  await user.selectOptions(selects[1], 'deny');
  await user.selectOptions(selects[0], '');
  await waitFor(() =>
    expect(backend.callsTo('set_tool_policy')).toEqual([
      { server: 'everything', tool: 'get-sum', policy: 'deny' },
      { server: 'everything', tool: 'echo', policy: null },
    ]),
  );
  expect(screen.getByRole('combobox', { name: 'Approval for get-sum' })).toHaveValue('deny');
});
