// Which fenced code blocks of an answer can be previewed as an artifact (HTML, SVG, Mermaid),
// and the document each becomes. The document runs in the MCP Apps' sandboxed frame (the
// `mcpapp` scheme: its own CSP — inline scripts and styles, no network, no IPC — and an opaque
// origin), never in the app's own page.

export type ArtifactKind = 'html' | 'svg' | 'mermaid';

/** The artifact a fenced block of language `lang` holding `code` is, if any. */
export function artifactKind(lang: string, code: string): ArtifactKind | null {
  const language = lang.trim().toLowerCase();
  if (language === 'html' || language === 'htm') return 'html';
  if (language === 'svg') return 'svg';
  if (language === 'mermaid' || language === 'mmd') return 'mermaid';
  if (language === 'xml' && /^\s*(<\?xml[^>]*>\s*)?<svg[\s>]/i.test(code)) return 'svg';
  return null;
}

/** The file extension a saved artifact gets. */
export const ARTIFACT_EXTENSIONS: Record<ArtifactKind, string> = { html: 'html', svg: 'svg', mermaid: 'mmd' };

/** What a Mermaid document posts to the parent when its diagram is drawn, or not. */
export const MERMAID_DONE = 'switchboard-artifact-rendered';

const FRAME_STYLE = 'html,body{margin:0;padding:0;background:#fff;color:#111}body{padding:12px}svg{max-width:100%;height:auto}';

/** Text that cannot close the `<script>` or `<style>` element it is put into. */
function inert(text: string): string {
  return text.replace(/<\/(script|style)/gi, '<\\/$1');
}

/** The whole document a preview of `kind` shows; `mermaid` is the Mermaid bundle's source. */
export function artifactDocument(kind: ArtifactKind, code: string, mermaid = ''): string {
  if (kind === 'html') return code;
  const head = `<!doctype html><html><head><meta charset="utf-8"><style>${FRAME_STYLE}</style></head><body>`;
  if (kind === 'svg') return `${head}${code}</body></html>`;
  // The diagram's source goes in as JSON (never as markup), rendered with Mermaid's strict
  // security level; the frame tells its parent when it is done, so a render that never ends
  // can be stopped there.
  const source = JSON.stringify(code).replace(/</g, '\\u003c');
  const run = `(async()=>{const say=(ok,detail)=>parent.postMessage({type:${JSON.stringify(MERMAID_DONE)},ok,detail},'*');` +
    `try{mermaid.initialize({startOnLoad:false,securityLevel:'strict',theme:'default'});` +
    `const {svg}=await mermaid.render('artifact',${source});document.body.innerHTML=svg;say(true,'')}` +
    `catch(e){document.body.textContent=String(e&&e.message||e);say(false,String(e&&e.message||e))}})();`;
  return `${head}<script>${inert(mermaid)}</script><script>${run}</script></body></html>`;
}
