import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test } from 'vitest';
import App from '../App.svelte';
import { currentRoute } from '../lib/router.svelte';
import { installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';

beforeEach(() => resetAppState());

test('without a provider the chat pane shows onboarding that leads to the provider settings', async () => {
  installFakeBackend();
  const user = userEvent.setup();
  render(App);

  expect(screen.getByTestId('chat-title')).toHaveTextContent('New chat');
  expect(screen.getByTestId('send-button')).toBeDisabled();
  expect(screen.getByTestId('composer-hint')).toHaveTextContent(
    'Add a model provider in Settings before sending messages.',
  );

  await user.click(await screen.findByRole('button', { name: 'Set up a provider' }));

  expect(currentRoute()).toEqual({ name: 'settings', tab: 'providers' });
  expect(await screen.findByRole('tab', { name: 'Providers' })).toHaveAttribute('aria-selected', 'true');
});
