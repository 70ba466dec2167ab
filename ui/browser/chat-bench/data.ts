// Synthetic conversations for the chat benchmark: alternating user questions and assistant
// answers of varied length (prose, lists, code, a table), like a long working session.
import type { Message } from '../../src/bindings';

const PROSE =
  'The answer walks through the **steps** one at a time, with `inline code`, a [link](https://example.com) ' +
  'and enough words to wrap over a few lines in the chat column. ';

function answer(i: number): string {
  switch (i % 4) {
    case 0:
      return `${PROSE.repeat(2)}\n\n- first point ${i}\n- second point\n- third point`;
    case 1:
      return `Here is the code for step ${i}:\n\n\`\`\`rust\nfn step_${i}(x: u32) -> u32 {\n    x * 2 + ${i}\n}\n\`\`\`\n\n${PROSE}`;
    case 2:
      return `| tool | calls | ms |\n|---|--:|--:|\n| echo | ${i} | 12 |\n| fetch | 1 | 240 |\n\n${PROSE.repeat(3)}`;
    default:
      return `Short answer ${i}.`;
  }
}

/** `count` messages of one branch, oldest first, alternating user and assistant. */
export function longConversation(conversationId: string, count: number): Message[] {
  const messages: Message[] = [];
  for (let i = 0; i < count; i++) {
    const user = i % 2 === 0;
    messages.push({
      id: `${conversationId}-m${i}`,
      conversationId,
      parentId: i === 0 ? null : `${conversationId}-m${i - 1}`,
      role: user ? 'user' : 'assistant',
      content: [{ type: 'text', text: user ? `Question ${i}: how does step ${i} work?` : answer(i) }],
      status: 'complete',
      model: user ? null : 'fake-model',
      usage: user ? null : { inputTokens: 1000 + i, outputTokens: 200 },
      error: null,
      createdAt: 1_700_000_000_000 + i * 1000,
      updatedAt: 1_700_000_000_000 + i * 1000,
    });
  }
  return messages;
}
