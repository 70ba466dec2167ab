import { render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test, vi } from 'vitest';
import type { Attachment } from '../bindings';
import { installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';
import { dangerousBits, XSS_CORPUS } from '../test/xss-corpus';
import AttachmentChips from './AttachmentChips.svelte';
import Composer from './composer/Composer.svelte';

beforeEach(() => resetAppState());

const hostile = (i: number) => XSS_CORPUS[i % XSS_CORPUS.length]!.payload;

/** `root` without the app's own icons (`n` of them expected), checked for anything dangerous. */
function dangerousBesidesIcons(root: HTMLElement, n: number): string[] {
  const copy = root.cloneNode(true) as HTMLElement;
  const icons = copy.querySelectorAll('span.icon[aria-hidden="true"]');
  expect(icons).toHaveLength(n);
  icons.forEach((icon) => icon.remove());
  return dangerousBits(copy, { appChrome: true });
}

test('hostile resource names, servers and URIs on chips stay text', () => {
  const attachments: Attachment[] = XSS_CORPUS.map((p, i) => ({
    server: hostile(i + 1),
    uri: hostile(i + 2),
    name: p.payload,
    mimeType: hostile(i + 3),
    body: { kind: 'text', value: p.payload },
  }));
  render(AttachmentChips, { attachments, onremoveattachment: vi.fn() });
  const root = screen.getByTestId('attachment-chips');
  expect(screen.getAllByTestId('attachment-chip')).toHaveLength(XSS_CORPUS.length);
  // Each chip has two icons: the paperclip and the remove button's cross.
  expect(dangerousBesidesIcons(root, 2 * XSS_CORPUS.length)).toEqual([]);
  expect(root.querySelectorAll('img, a, script, iframe')).toHaveLength(0);
  expect(root).toHaveTextContent('<script>__xss(1)</script>');
});

test('hostile prompt names, titles and resource listings in the composer stay text', async () => {
  const xss = vi.fn();
  (window as unknown as { __xss: unknown }).__xss = xss;
  installFakeBackend([], {
    extra: (cmd) => {
      if (cmd === 'server_prompts') {
        return XSS_CORPUS.map((p, i) => ({ name: `p${i}${p.payload}`, title: hostile(i + 5), description: hostile(i + 7), arguments: [] }));
      }
      if (cmd === 'server_resources') {
        return XSS_CORPUS.map((p, i) => ({ uri: `x://${i}${p.payload}`, name: p.payload, title: null, description: null, mime: null, size: null }));
      }
      if (cmd === 'server_resource_templates') return [];
      return undefined;
    },
  });
  const user = userEvent.setup();
  render(Composer, { canSend: true, onsend: vi.fn(), servers: async () => [hostile(3)] });
  await user.type(screen.getByTestId('composer'), '/');
  await waitFor(() => expect(screen.getAllByTestId('prompt-option')).toHaveLength(XSS_CORPUS.length));
  expect(dangerousBesidesIcons(screen.getByTestId('prompt-menu'), 0)).toEqual([]);
  await user.clear(screen.getByTestId('composer'));
  await user.click(screen.getByTestId('attach-button'));
  const picker = await screen.findByTestId('resource-picker');
  await waitFor(() => expect(picker.querySelectorAll('.item')).toHaveLength(XSS_CORPUS.length));
  // The picker's own filter box is the one input allowed.
  expect(dangerousBesidesIcons(picker, 0)).toEqual(['<input>']);
  expect(picker.querySelectorAll('img, a, script, iframe')).toHaveLength(0);
  expect(xss).not.toHaveBeenCalled();
});
