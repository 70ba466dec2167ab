// Saving an artifact to a file (src-tauri/src/commands/artifacts.rs).
import * as commands from './commands';

/** Writes an artifact's text to `path`, a file the user chose in the save dialog. */
export function saveArtifact(path: string, contents: string): Promise<void> {
  return commands.saveArtifact({ path, contents });
}
