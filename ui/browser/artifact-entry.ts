// The artifact documents, built for browser/artifact-chromium.mjs (node imports this bundle).
export { artifactDocument } from '../src/lib/markdown/artifacts';
