import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import type { PreparedFile } from '../../bindings';
import { setLang } from '../../i18n/index.svelte';
import { installFakeBackend } from '../../test/fakeBackend';
import { resetAppState } from '../../test/reset';
import Composer from './Composer.svelte';

beforeEach(() => resetAppState());

const THUMB = 'data:image/png;base64,iVBORw0KGgo=';

const IMAGE: PreparedFile = {
  part: { type: 'image_ref', hash: 'a'.repeat(64), mimeType: 'image/png', width: 640, height: 480, name: 'photo.png' },
  thumbnail: THUMB,
  tokens: 765,
};

const CODE: PreparedFile = {
  part: { type: 'file', name: 'main.rs', language: 'rust', text: 'fn main() {}\n', tokens: 1234, pages: null },
  thumbnail: null,
  tokens: 1234,
};

const PDF: PreparedFile = {
  part: { type: 'file', name: 'book.pdf', language: '', text: 'Chapter one.', tokens: 56, pages: { total: 300, extracted: 100 } },
  thumbnail: null,
  tokens: 56,
};

function setup(options: { vision?: boolean | null; refuse?: string } = {}) {
  const backend = installFakeBackend([], {
    extra: (cmd, args) => {
      switch (cmd) {
        case 'plugin:dialog|open':
          return ['/home/me/photo.png', '/home/me/main.rs'];
        case 'attach_file':
          if (options.refuse) throw { kind: 'invalid_input', message: options.refuse };
          return String(args.path).endsWith('.png') ? IMAGE : CODE;
        case 'attach_bytes':
          return IMAGE;
        default:
          return undefined;
      }
    },
  });
  const onsend = vi.fn();
  const imageSupport = vi.fn(async () => options.vision ?? null);
  render(Composer, { canSend: true, onsend, imageSupport });
  return { backend, onsend, imageSupport, box: screen.getByTestId('composer') as HTMLTextAreaElement };
}

describe('attaching images and files', () => {
  test('files from the picker show as a thumbnail and a chip with tokens, and are sent with the text', async () => {
    const { backend, onsend, box } = setup();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Attach images or files' }));
    expect(await screen.findByTestId('upload-thumbnail')).toHaveAttribute('src', THUMB);
    expect(screen.getByAltText('Attached image photo.png')).toBeInTheDocument();
    expect(await screen.findByTestId('upload-tokens')).toHaveTextContent('1,234 tokens');
    expect(screen.getByTestId('upload-total')).toHaveTextContent('Attached files: 1,234 tokens');
    expect(backend.callsTo('attach_file')).toEqual([{ path: '/home/me/photo.png' }, { path: '/home/me/main.rs' }]);
    await user.type(box, 'Look{Enter}');
    expect(onsend).toHaveBeenCalledExactlyOnceWith('Look', [], [IMAGE, CODE]);
    expect(screen.queryByTestId('upload-chips')).toBeNull();
  });

  test('a PDF chip says how many of its pages were taken', async () => {
    installFakeBackend([], {
      extra: (cmd) => (cmd === 'plugin:dialog|open' ? ['/home/me/book.pdf'] : cmd === 'attach_file' ? PDF : undefined),
    });
    render(Composer, { canSend: true, onsend: vi.fn() });
    await userEvent.setup().click(screen.getByTestId('upload-button'));
    expect(await screen.findByTestId('upload-tokens')).toHaveTextContent('56 tokens · 100 of 300 pages');
  });

  test('a pasted image is sent to the engine as bytes and shown', async () => {
    const { backend } = setup();
    const file = new File([new Uint8Array([137, 80, 78, 71])], 'shot.png', { type: 'image/png' });
    const data = { files: [file], items: [] } as unknown as DataTransfer;
    await fireEvent.paste(screen.getByTestId('composer'), { clipboardData: data });
    expect(await screen.findByTestId('upload-thumbnail')).toBeInTheDocument();
    expect(backend.calls.some((c) => c.cmd === 'attach_bytes')).toBe(true);
  });

  test('an image only needs no text to be sent', async () => {
    const { onsend } = setup();
    const user = userEvent.setup();
    await user.click(screen.getByTestId('upload-button'));
    await screen.findByTestId('upload-thumbnail');
    await user.click(screen.getByTestId('send-button'));
    expect(onsend).toHaveBeenCalledWith('', [], [IMAGE, CODE]);
  });

  test('a refused file shows the engine’s words and is not attached', async () => {
    setup({ refuse: '“huge.bin” is 200.0 MB; attachments can be at most 50 MB' });
    await userEvent.setup().click(screen.getByTestId('upload-button'));
    expect(await screen.findByTestId('composer-error')).toHaveTextContent('“huge.bin” is 200.0 MB; attachments can be at most 50 MB');
    expect(screen.queryByTestId('upload-chip')).toBeNull();
  });

  test('an image for a model without vision is flagged before sending and the send button waits', async () => {
    const { imageSupport } = setup({ vision: false });
    await userEvent.setup().click(screen.getByTestId('upload-button'));
    expect(await screen.findByTestId('no-vision')).toHaveTextContent('This model cannot see images');
    expect(imageSupport).toHaveBeenCalled();
    expect(screen.getByTestId('send-button')).toBeDisabled();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Remove photo.png' }));
    await waitFor(() => expect(screen.queryByTestId('no-vision')).toBeNull());
  });

  test('in Chinese the chips and the warning are translated', async () => {
    setLang('zh-CN');
    setup({ vision: false });
    await userEvent.setup().click(screen.getByRole('button', { name: '附加图片或文件' }));
    expect(await screen.findByTestId('no-vision')).toHaveTextContent('此模型无法识别图片');
    expect(await screen.findByTestId('upload-tokens')).toHaveTextContent('1,234 个 token');
    expect(screen.getByAltText('附加的图片 photo.png')).toBeInTheDocument();
  });
});
