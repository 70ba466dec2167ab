import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test } from 'vitest';
import { shownErrors } from '../lib/errors.svelte';
import LazyHost from '../test/LazyHost.svelte';
import { resetAppState } from '../test/reset';
import Lazy from './Lazy.svelte';

beforeEach(() => resetAppState());

test('a component loaded on demand appears once loaded, with its props, and follows their changes', async () => {
  let loads = 0;
  const load = () => {
    loads += 1;
    return import('../test/Greeting.svelte');
  };
  render(LazyHost, { props: { load } });

  expect(await screen.findByText('Hello Ada')).toBeInTheDocument();
  await userEvent.setup().click(screen.getByRole('button', { name: 'rename' }));

  expect(screen.getByText('Hello Grace')).toBeInTheDocument();
  expect(loads).toBe(1);
});

test('a component that fails to load shows nothing and the failure is reported', async () => {
  render(Lazy, { props: { load: () => Promise.reject(new Error('chunk missing')), props: {} } });

  await expect.poll(() => shownErrors().map((e) => e.message)).toEqual(['chunk missing']);
  expect(document.body.textContent?.trim()).toBe('');
});
