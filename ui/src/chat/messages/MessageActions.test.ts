import { render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import type { Message } from '../../bindings';
import { setLang } from '../../i18n/index.svelte';
import { conversationUse, costOf, formatCost, messageMarkdown, priceOf, prices } from '../../lib/uploads.svelte';
import { installFakeBackend } from '../../test/fakeBackend';
import { resetAppState } from '../../test/reset';
import MessageActions from './MessageActions.svelte';

beforeEach(() => {
  resetAppState();
  prices.table = { 'gpt-4o': { input: 2.5, output: 10 }, 'gpt-4o-mini': { input: 0.15, output: 0.6 } };
});

function message(fields: Partial<Message> = {}): Message {
  return {
    id: 'm1',
    conversationId: 'c1',
    parentId: null,
    role: 'assistant',
    content: [{ type: 'text', text: 'Hello **there**' }],
    status: 'complete',
    model: 'gpt-4o-2024-08-06',
    usage: { inputTokens: 1000, outputTokens: 500 },
    error: null,
    createdAt: 0,
    updatedAt: 0,
    ...fields,
  };
}

function setup(below: number, m = message()) {
  const backend = installFakeBackend([], { extra: (cmd) => (cmd === 'message_deletion_size' ? below + 1 : undefined) });
  const ondelete = vi.fn(async () => true);
  render(MessageActions, { message: m, busy: false, ondelete });
  return { backend, ondelete };
}

describe('message actions', () => {
  test('deleting asks first, says how many messages under it go too, then deletes', async () => {
    const { ondelete } = setup(3);
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    expect(await screen.findByTestId('delete-explanation')).toHaveTextContent(
      'This message and the 3 messages under it (every reply and branch that follows it) will be deleted.',
    );
    await user.click(screen.getByTestId('delete-confirm'));
    expect(ondelete).toHaveBeenCalledExactlyOnceWith('m1');
    await waitFor(() => expect(screen.queryByTestId('delete-dialog')).toBeNull());
  });

  test('cancelling the question deletes nothing', async () => {
    const { ondelete } = setup(0);
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    expect(await screen.findByTestId('delete-explanation')).toHaveTextContent('This message will be deleted.');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(ondelete).not.toHaveBeenCalled();
  });

  test('in Chinese the question and the actions are translated', async () => {
    setLang('zh-CN');
    setup(2);
    const user = userEvent.setup();
    expect(screen.getByTestId('copy-markdown')).toHaveTextContent('复制为 Markdown');
    await user.click(screen.getByRole('button', { name: '删除' }));
    expect(await screen.findByTestId('delete-explanation')).toHaveTextContent('这条消息及其下方的 2 条消息');
  });

  test('copy as Markdown writes the text and attached files fenced', async () => {
    const m = message({
      role: 'user',
      content: [
        { type: 'text', text: 'Review this' },
        { type: 'file', name: 'main.rs', language: 'rust', text: 'fn main() {}\n', tokens: 5, pages: null },
        { type: 'image_ref', hash: 'a'.repeat(64), mimeType: 'image/png', width: 1, height: 1, name: 'shot.png' },
      ],
    });
    setup(0, m);
    const user = userEvent.setup();
    const writeText = vi.spyOn(navigator.clipboard, 'writeText');
    await user.click(screen.getByTestId('copy-markdown'));
    expect(writeText).toHaveBeenCalledWith('Review this\n\n**main.rs**\n\n```rust\nfn main() {}\n```\n\n![shot.png](shot.png)');
    expect(screen.getByTestId('copy-markdown')).toHaveTextContent('Copied');
  });

  test('the cost of a message comes from the price of its model (a dated id takes its prefix)', () => {
    setup(0);
    // 1,000 × $2.5 + 500 × $10 per million tokens.
    expect(screen.getByTestId('message-cost')).toHaveTextContent('$0.0075');
  });
});

describe('prices', () => {
  test('a model takes its own price, else the longest prefix, else none', () => {
    const table = prices.table;
    expect(priceOf(table, 'gpt-4o-mini-2024-07-18')).toEqual({ input: 0.15, output: 0.6 });
    expect(priceOf(table, 'openai/gpt-4o')).toEqual({ input: 2.5, output: 10 });
    expect(priceOf(table, 'llama3')).toBeNull();
    expect(costOf(table, 'llama3', { inputTokens: 1, outputTokens: 1 })).toBeNull();
  });

  test('the conversation adds up every message, and prices only the priced ones', () => {
    const use = conversationUse(prices.table, [
      message(),
      message({ id: 'm2', model: 'llama3', usage: { inputTokens: 10, outputTokens: 20 } }),
      message({ id: 'm3', role: 'user', usage: null, model: null }),
    ]);
    expect(use).toEqual({ input: 1010, output: 520, cost: 0.0075 });
    expect(formatCost(12.345)).toBe('$12.35');
  });

  test('a message without usage copies as its text', () => {
    expect(messageMarkdown(message({ usage: null }))).toBe('Hello **there**');
  });
});
