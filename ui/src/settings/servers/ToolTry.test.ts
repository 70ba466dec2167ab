import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import type { ToolResult } from '../../bindings';
import { resetAppState } from '../../test/reset';
import ToolTry from './ToolTry.svelte';

beforeEach(() => resetAppState());

const ECHO = {
  name: 'echo',
  title: 'Echo',
  description: 'Echoes back the input',
  input_schema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
};

describe('try this tool', () => {
  test('runs the tool with the form’s arguments and shows the result as a card', async () => {
    let finish!: (value: ToolResult) => void;
    const call = vi.fn(() => new Promise<ToolResult>((resolve) => (finish = resolve)));
    const user = userEvent.setup();
    render(ToolTry, { server: 'everything', tool: ECHO, call });
    expect(screen.getByRole('heading', { name: 'Try Echo' })).toBeInTheDocument();

    await user.type(screen.getByLabelText(/^message/), 'hello');
    await user.click(screen.getByRole('button', { name: 'Run tool' }));
    expect(call).toHaveBeenCalledWith({ message: 'hello' });
    expect(screen.getByTestId('tool-call-card')).toHaveAttribute('data-state', 'running');
    expect(screen.getByRole('button', { name: 'Run tool' })).toBeDisabled();

    finish({ content: [{ type: 'text', text: 'Echo: hello' }], structured: null, is_error: false });
    expect(await screen.findByTestId('tool-call-result')).toHaveTextContent('Echo: hello');
  });

  test('a failed call shows its message', async () => {
    const call = vi.fn().mockRejectedValue({ kind: 'invalid_input', message: 'server "everything" is not running' });
    const user = userEvent.setup();
    render(ToolTry, { server: 'everything', tool: ECHO, call });
    await user.type(screen.getByLabelText(/^message/), 'x');
    await user.click(screen.getByRole('button', { name: 'Run tool' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('server "everything" is not running');
  });
});
