import { fireEvent, render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import { resetAppState } from '../../test/reset';
import Composer from './Composer.svelte';

beforeEach(() => resetAppState());

function setup(canSend = true) {
  const onsend = vi.fn<(text: string, attachments: unknown[]) => void>();
  render(Composer, { canSend, onsend, disabledHint: 'Add a provider first' });
  return { onsend, box: screen.getByTestId('composer') as HTMLTextAreaElement };
}

describe('the composer', () => {
  test('is a labelled textarea', () => {
    setup();
    expect(screen.getByLabelText('Message')).toBe(screen.getByTestId('composer'));
  });

  test('Enter sends the text through onsend and clears the box', async () => {
    const { onsend, box } = setup();
    const user = userEvent.setup();

    await user.type(box, 'Hello there{Enter}');

    expect(onsend).toHaveBeenCalledExactlyOnceWith('Hello there', []);
    expect(box).toHaveValue('');
  });

  test('Shift+Enter inserts a new line instead of sending', async () => {
    const { onsend, box } = setup();
    const user = userEvent.setup();

    await user.type(box, 'line one{Shift>}{Enter}{/Shift}line two');

    expect(onsend).not.toHaveBeenCalled();
    expect(box).toHaveValue('line one\nline two');
  });

  test('Enter that confirms an IME candidate does not send', async () => {
    const { onsend, box } = setup();
    const user = userEvent.setup();
    await user.type(box, '你好');

    await fireEvent.keyDown(box, { key: 'Enter', isComposing: true });
    await fireEvent.keyDown(box, { key: 'Enter', keyCode: 229 });

    expect(onsend).not.toHaveBeenCalled();
    expect(box).toHaveValue('你好');

    await fireEvent.keyDown(box, { key: 'Enter' });
    expect(onsend).toHaveBeenCalledExactlyOnceWith('你好', []);
  });

  test('the send button sends the text', async () => {
    const { onsend, box } = setup();
    const user = userEvent.setup();
    const button = screen.getByTestId('send-button');
    expect(button).toBeDisabled();

    await user.type(box, 'Hi');
    expect(button).toBeEnabled();
    await user.click(button);

    expect(onsend).toHaveBeenCalledExactlyOnceWith('Hi', []);
  });

  test('blank text is never sent', async () => {
    const { onsend, box } = setup();
    const user = userEvent.setup();

    await user.type(box, '   {Enter}');

    expect(onsend).not.toHaveBeenCalled();
  });

  test('when sending is not possible the button is disabled, the hint says why and Enter does nothing', async () => {
    const { onsend, box } = setup(false);
    const user = userEvent.setup();

    await user.type(box, 'Hello{Enter}');

    expect(onsend).not.toHaveBeenCalled();
    expect(box).toHaveValue('Hello');
    const button = screen.getByTestId('send-button');
    expect(button).toBeDisabled();
    expect(button).toHaveAttribute('title', 'Add a provider first');
    expect(box).toHaveAccessibleDescription('Add a provider first');
  });
});
