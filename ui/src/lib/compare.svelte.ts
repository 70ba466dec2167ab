// Side by side: the models picked to answer beside the chat's own (up to three more), and the
// compare on screen — one lane per model, each its own chat state fed by its own events, with
// when its first token came and when it ended — until the user keeps one lane's answer (a
// branch switch) or leaves. Failures go to the error banner.
import * as api from '../api';
import type { CompareBatch, CompareModel, MessageStatus, TurnEnd } from '../bindings';
import { chat } from './chat.svelte';
import { conversations } from './conversations.svelte';
import { applyEvent, emptyState, type ChatState } from './chatState';
import { reportError } from './errors.svelte';

/** The most models one message goes to (the chat's own and three more). */
export const MAX_COMPARED = 4;

/** One model's answer in a compare. */
export type Lane = {
  model: CompareModel;
  state: ChatState;
  /** Milliseconds from sending to its first token (text or reasoning), once it came. */
  firstToken: number | null;
  /** Milliseconds from sending to its end, once it ended. */
  took: number | null;
  /** The last message of its branch, once it ended (empty when it failed before one). */
  head: string | null;
  end: TurnEnd | null;
};

class CompareSession {
  /** The models that answer beside the chat's own. */
  extras = $state<CompareModel[]>([]);
  /** The conversation of the compare on screen. */
  conversationId = $state<string | null>(null);
  prompt = $state('');
  lanes = $state<Lane[]>([]);
  private sentAt = 0;

  get active(): boolean {
    return this.lanes.length > 0;
  }

  get running(): boolean {
    return this.lanes.some((l) => l.end === null);
  }

  /** Adds a model to answer beside the chat's own; false when there is no room or it is there. */
  add(model: CompareModel): boolean {
    const name = model.model.trim();
    if (name === '' || this.extras.length >= MAX_COMPARED - 1) return false;
    if (this.extras.some((m) => m.providerId === model.providerId && m.model === name)) return false;
    this.extras = [...this.extras, { providerId: model.providerId, model: name }];
    return true;
  }

  remove(index: number): void {
    this.extras = this.extras.filter((_, i) => i !== index);
  }

  /** Sends `text` in `conversationId` to `own` (the chat's model), the extras and the models
   * the message mentions (`mentioned`), at once: four at most, each once. */
  async send(conversationId: string, own: CompareModel, text: string, mentioned: CompareModel[] = []): Promise<void> {
    const models: CompareModel[] = [];
    for (const m of [own, ...this.extras, ...mentioned]) {
      const taken = models.some((x) => x.providerId === m.providerId && x.model === m.model);
      if (!taken && models.length < MAX_COMPARED) models.push(m);
    }
    this.conversationId = conversationId;
    this.prompt = text;
    this.sentAt = performance.now();
    this.lanes = models.map((model) => ({ model, state: { ...emptyState(), running: true }, firstToken: null, took: null, head: null, end: null }));
    try {
      await api.compareMessage(conversationId, text, models, (batch) => this.onBatch(conversationId, batch));
    } catch (error) {
      this.close();
      reportError(error);
    }
  }

  private onBatch(conversationId: string, batch: CompareBatch): void {
    const lane = this.lanes[batch.lane];
    if (this.conversationId !== conversationId || !lane) return;
    const at = performance.now() - this.sentAt;
    let { state, firstToken, took, head, end } = lane;
    for (const e of batch.events) {
      if (firstToken === null && (e.type === 'text_delta' || e.type === 'reasoning_delta')) firstToken = at;
      if (e.type === 'finished') {
        took = at;
        head = e.head_id;
        end = e.reason;
      }
      if (e.type === 'titled') conversations.setTitle(conversationId, e.title);
      state = applyEvent(state, e, conversationId);
      if (e.type === 'finished') state = settled(state, e.reason);
    }
    this.lanes = this.lanes.map((l, i) => (i === batch.lane ? { ...l, state, firstToken, took, head, end } : l));
  }

  /** Continues the conversation from lane `index`'s answer (the others stay as branches). */
  async keep(index: number): Promise<void> {
    const head = this.lanes[index]?.head;
    if (!head) return;
    this.lanes = [];
    this.conversationId = null;
    this.prompt = '';
    await chat.switchTo(head);
  }

  /** Takes the compare off the screen (the conversation shows the first model's answer). */
  close(): void {
    const was = this.conversationId;
    this.lanes = [];
    this.conversationId = null;
    this.prompt = '';
    if (was !== null && chat.conversationId === was) void chat.reload();
  }

  /** Forgets everything (tests). */
  reset(): void {
    this.extras = [];
    this.lanes = [];
    this.conversationId = null;
    this.prompt = '';
  }
}

export const compare = new CompareSession();

/** A lane's messages once its turn ended: nothing is streaming any more (a single turn reads
 * them back from the engine instead; a lane keeps what it streamed). */
function settled(state: ChatState, reason: TurnEnd): ChatState {
  const status: MessageStatus = reason === 'cancelled' ? 'cancelled' : reason === 'error' ? 'error' : 'complete';
  return { ...state, running: false, messages: state.messages.map((m) => (m.status === 'streaming' ? { ...m, status } : m)) };
}

/** The model a lane answers with, as shown: the one its answer names, else the one asked for. */
export function laneModel(lane: Lane): string {
  return lane.state.messages.find((m) => m.model)?.model ?? lane.model.model;
}
