// The artifact shown in the side pane: a previewable block of an answer (HTML, SVG, Mermaid),
// its document registered with the shell for the sandboxed frame, saved to a file on request.
// Mermaid's bundle (lib/markdown/artifacts.ts inlines it into the document) is loaded on the
// first Mermaid preview only.
import { closeAppView, openAppView, saveArtifact } from '../api';
import type { AppCsp } from '../bindings';
import { chooseArtifactDestination } from './fileDialog';
import { ARTIFACT_EXTENSIONS, artifactDocument, type ArtifactKind } from './markdown/artifacts';

export type Artifact = { kind: ArtifactKind; code: string };

/** How long a Mermaid diagram may take to draw before its frame is stopped, ms. */
export const RENDER_LIMIT_MS = 10_000;

/** The frame's CSP allows no origin at all: no network, no frames, no base URI. */
const NOTHING_ALLOWED: AppCsp = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };

let mermaidSource: Promise<string> | null = null;

function mermaidBundle(): Promise<string> {
  mermaidSource ??= import('mermaid/dist/mermaid.min.js?raw').then((m: { default: string }) => m.default);
  return mermaidSource;
}

class Artifacts {
  current = $state<Artifact | null>(null);

  /** Shows `code` as an artifact of `kind` in the side pane (replacing the one shown). */
  open(kind: ArtifactKind, code: string): void {
    this.current = { kind, code };
  }

  close(): void {
    this.current = null;
  }

  /** Registers the document of `artifact` for the frame; the token it is served under. */
  async register(artifact: Artifact): Promise<string> {
    const mermaid = artifact.kind === 'mermaid' ? await mermaidBundle() : '';
    return openAppView(artifactDocument(artifact.kind, artifact.code, mermaid), NOTHING_ALLOWED);
  }

  /** Forgets a registered document. */
  release(token: string): void {
    void closeAppView(token).catch(() => undefined);
  }

  /** Asks where to save `artifact` and writes its source there; false when the user closed
   * the dialog. */
  async save(artifact: Artifact): Promise<boolean> {
    const path = await chooseArtifactDestination(ARTIFACT_EXTENSIONS[artifact.kind]);
    if (path === null) return false;
    await saveArtifact(path, artifact.code);
    return true;
  }
}

export const artifacts = new Artifacts();
