// A server's requests to the user (sampling approval, form and URL elicitation) and another
// app's tool calls through the local server that the policy asks about, as they arrive
// on the global Tauri event `mcp:interaction` (src-tauri/src/events.rs). Each waits in `pending`
// until the user answers it (`answer_interaction`) or a `closed` event ends it.
import { listen, type UnlistenFn } from '@tauri-apps/api/event';
import * as api from '../api';
import type { InteractionAnswer, InteractionEvent } from '../bindings';

/** The Tauri event that carries `InteractionEvent`s. */
export const INTERACTION_EVENT = 'mcp:interaction';

/** A request that waits for the user (every `InteractionEvent` but `closed`). */
export type Interaction = Exclude<InteractionEvent, { type: 'closed' }>;

const REQUEST_TYPES = ['sampling_requested', 'elicitation_requested', 'elicitation_url', 'client_call_requested'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Checks an event payload's shape (it crosses the IPC boundary). */
export function isInteractionEvent(value: unknown): value is InteractionEvent {
  if (!isObject(value) || typeof value.id !== 'string' || typeof value.server !== 'string') return false;
  switch (value.type) {
    case 'sampling_requested':
      return isObject(value.request) && Array.isArray(value.request.messages);
    case 'elicitation_requested':
      return typeof value.message === 'string';
    case 'elicitation_url':
      return typeof value.url === 'string' && typeof value.message === 'string';
    case 'client_call_requested':
      return typeof value.client === 'string' && typeof value.tool === 'string' && typeof value.canAlways === 'boolean';
    case 'closed':
      return true;
    default:
      return false;
  }
}

class InteractionStore {
  /** Waiting requests, oldest first; the first is the one shown. */
  pending = $state<Interaction[]>([]);

  /** Applies one event: a request joins the queue, `closed` removes it. */
  apply(event: InteractionEvent): void {
    if (event.type === 'closed') {
      this.pending = this.pending.filter((p) => p.id !== event.id);
    } else if (REQUEST_TYPES.includes(event.type) && !this.pending.some((p) => p.id === event.id)) {
      this.pending = [...this.pending, event];
    }
  }

  /** Sends the user's answer; the request leaves the queue once the engine has it. */
  async answer(id: string, answer: InteractionAnswer): Promise<void> {
    await api.answerInteraction(id, answer);
    this.pending = this.pending.filter((p) => p.id !== id);
  }

  reset(): void {
    this.pending = [];
  }
}

export const interactions = new InteractionStore();

/** Feeds `mcp:interaction` events into the store; returns the function that stops listening. */
export function listenInteractions(): Promise<UnlistenFn> {
  return listen<unknown>(INTERACTION_EVENT, (event) => {
    if (isInteractionEvent(event.payload)) interactions.apply(event.payload);
  });
}

/** The host a URL request would open, shown apart from the URL so it cannot hide in it. */
export function hostOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.host : null;
  } catch {
    return null;
  }
}
