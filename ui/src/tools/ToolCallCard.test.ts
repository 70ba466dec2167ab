import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import { setLang } from '../i18n/index.svelte';
import type { ToolCallStatus } from '../lib/toolCall';
import { dangerousBits, XSS_CORPUS } from '../test/xss-corpus';
import { resetAppState } from '../test/reset';
import ApprovalButtons from './ApprovalButtons.svelte';
import ToolCallCard from './ToolCallCard.svelte';

beforeEach(() => resetAppState());

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

function card(status: ToolCallStatus, extra: Record<string, unknown> = {}) {
  return render(ToolCallCard, { server: 'everything', tool: 'echo', arguments: { message: 'hi', n: 2 }, status, ...extra });
}

describe('ApprovalButtons', () => {
  test('offers four answers and reports the one chosen, once', async () => {
    const ondecide = vi.fn();
    const user = userEvent.setup();
    render(ApprovalButtons, { tool: 'echo', ondecide });
    const group = screen.getByRole('group', { name: 'Allow echo to run?' });
    const names = within(group).getAllByRole('button').map((b) => b.textContent?.trim());
    expect(names).toEqual(['Allow once', 'Allow for this chat', 'Always allow', 'Deny']);

    await user.click(screen.getByRole('button', { name: 'Allow for this chat' }));
    await user.click(screen.getByRole('button', { name: 'Deny' }));

    expect(ondecide.mock.calls).toEqual([['allow_for_chat']]);
    for (const button of within(group).getAllByRole('button')) expect(button).toBeDisabled();
  });

  test('comes back when the answer could not be delivered, and stays answered when it was', async () => {
    const ondecide = vi.fn().mockResolvedValueOnce(false).mockResolvedValueOnce(true);
    const user = userEvent.setup();
    render(ApprovalButtons, { tool: 'echo', ondecide });
    await user.click(screen.getByRole('button', { name: 'Allow once' }));
    await vi.waitFor(() => expect(screen.getByRole('button', { name: 'Allow once' })).toBeEnabled());

    await user.click(screen.getByRole('button', { name: 'Deny' }));
    await Promise.resolve();
    expect(ondecide.mock.calls).toEqual([['allow_once'], ['deny']]);
    expect(screen.getByRole('button', { name: 'Deny' })).toBeDisabled();
  });

  test('is reachable and usable with the keyboard', async () => {
    const ondecide = vi.fn();
    const user = userEvent.setup();
    render(ApprovalButtons, { tool: 'echo', ondecide });
    await user.tab();
    expect(screen.getByRole('button', { name: 'Allow once' })).toHaveFocus();
    await user.tab();
    await user.tab();
    await user.tab();
    expect(screen.getByRole('button', { name: 'Deny' })).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(ondecide).toHaveBeenCalledWith('deny');
  });

  test('speaks Chinese', () => {
    setLang('zh-CN');
    render(ApprovalButtons, { tool: 'echo', ondecide: vi.fn() });
    expect(screen.getByRole('button', { name: '允许一次' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '拒绝' })).toBeInTheDocument();
  });
});

describe('ToolCallCard', () => {
  test('waiting for approval: shows server, tool, pretty arguments and the approval buttons', async () => {
    const ondecide = vi.fn();
    const user = userEvent.setup();
    card({ state: 'pending-approval' }, { ondecide });
    const article = screen.getByRole('article', { name: 'everything › echo' });
    expect(article).toHaveAttribute('data-state', 'pending-approval');
    expect(screen.getByTestId('tool-call-state')).toHaveTextContent('Waiting for approval');
    expect(screen.getByTestId('tool-call-arguments')).toBeVisible();
    expect(screen.getByTestId('tool-call-arguments').textContent).toBe('{\n  "message": "hi",\n  "n": 2\n}');
    await user.click(screen.getByRole('button', { name: 'Always allow' }));
    expect(ondecide).toHaveBeenCalledWith('allow_always');
  });

  test('running: a determinate progress bar with the server message', () => {
    card({ state: 'running', progress: 3, total: 4, message: 'Downloading' });
    const bar = screen.getByRole('progressbar', { name: 'Progress of echo' });
    expect(bar).toHaveAttribute('value', '3');
    expect(bar).toHaveAttribute('max', '4');
    expect(screen.getByText('Downloading · 75%')).toBeInTheDocument();
    expect(screen.queryByTestId('approval-buttons')).toBeNull();
  });

  test('running without a total: an indeterminate bar', () => {
    card({ state: 'running' });
    expect(screen.getByRole('progressbar')).not.toHaveAttribute('value');
    expect(screen.getByTestId('tool-call-state')).toHaveTextContent('Running…');
  });

  test('done: a long result is previewed and expands', async () => {
    const user = userEvent.setup();
    const text = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');
    card({ state: 'done', result: { content: [{ type: 'text', text }], structured: null, is_error: false } });
    const result = screen.getByTestId('tool-call-result');
    expect(result.textContent).toBe('line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8…');
    const toggle = screen.getByRole('button', { name: 'Show all' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');

    await user.click(toggle);
    expect(result.textContent).toBe(text);
    expect(screen.getByRole('button', { name: 'Show less' })).toHaveAttribute('aria-expanded', 'true');
  });

  test('done: shows raster images and refuses anything else', () => {
    card({
      state: 'done',
      result: {
        content: [
          { type: 'text', text: 'two images' },
          { type: 'image', mime: 'image/png', data: PNG },
          { type: 'image', mime: 'image/svg+xml', data: 'PHN2Zz4=' },
          { type: 'image', mime: 'image/png', data: 'not base64 "><script>' },
        ],
        structured: null,
        is_error: false,
      },
    });
    const images = screen.getAllByRole('img');
    expect(images).toHaveLength(1);
    expect(images[0]).toHaveAttribute('src', `data:image/png;base64,${PNG}`);
    expect(images[0]).toHaveAccessibleName('Image 1 returned by echo');
  });

  test('error: the message is shown as an alert and the card is marked failed', () => {
    card({ state: 'error', message: 'timed out after 60 s' });
    expect(screen.getByRole('alert')).toHaveTextContent('timed out after 60 s');
    expect(screen.getByTestId('tool-call-state')).toHaveTextContent('Failed');
    expect(screen.getByTestId('tool-call-card')).toHaveClass('failed');
  });

  test('a result the tool flagged as an error shows as failed', () => {
    card({ state: 'done', result: { content: [{ type: 'text', text: 'no such file' }], structured: null, is_error: true } });
    expect(screen.getByTestId('tool-call-state')).toHaveTextContent('Failed');
  });

  test('hostile server names, arguments and results stay text', () => {
    const hostile = XSS_CORPUS.map((p) => p.payload).join('\n');
    render(ToolCallCard, {
      server: XSS_CORPUS[0]!.payload,
      tool: XSS_CORPUS[12]!.payload,
      arguments: { html: hostile },
      status: { state: 'error', message: hostile, result: { content: [{ type: 'text', text: hostile }], structured: null, is_error: true } },
    });
    const root = screen.getByTestId('tool-call-card');
    expect(dangerousBits(root, { appChrome: true })).toEqual([]);
    expect(root.querySelectorAll('img, a')).toHaveLength(0);
    expect(screen.getByTestId('tool-call-error')).toHaveTextContent('<script>__xss(1)</script>');
  });
});
