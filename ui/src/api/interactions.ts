// A server's requests to the user and the client capabilities: the roots and the model that
// answers sampling requests (src-tauri/src/commands/interactions.rs).
import type { InteractionAnswer, RootInfo, SamplingModel } from '../bindings';
import * as commands from './commands';

export { listRoots, samplingModel } from './commands';

/** Answers the server request `id` (an accepted URL request opens its page in the browser). */
export function answerInteraction(id: string, answer: InteractionAnswer): Promise<void> {
  return commands.answerInteraction({ id, answer });
}

/** Replaces the roots (existing absolute folders); resolves with the new list. */
export function setRoots(folders: string[]): Promise<RootInfo[]> {
  return commands.setRoots({ folders });
}

/** Chooses, or with `null` clears, the model that answers sampling requests. */
export function setSamplingModel(choice: SamplingModel | null): Promise<void> {
  return commands.setSamplingModel({ choice });
}
