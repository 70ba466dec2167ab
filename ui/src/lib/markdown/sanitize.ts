// The one gate between untrusted HTML (model text, tool results) and the DOM. Everything the
// Markdown renderer produces passes through `sanitizeHtml` before it is inserted. The policy is
// an allow-list: a handful of text tags and attributes, links only to http(s)/mailto, images only
// from `data:image/…` (remote ones are parked in `data-remote-src` until the user allows them),
// classes only from our own vocabulary, no ids, no styles, no forms, no frames, no SVG/MathML.
import DOMPurify, { type Config } from 'dompurify';

const ALLOWED_TAGS = [
  'a', 'abbr', 'b', 'blockquote', 'br', 'caption', 'code', 'dd', 'del', 'details', 'div', 'dl',
  'dt', 'em', 'figcaption', 'figure', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'img', 'ins',
  'kbd', 'li', 'mark', 'ol', 'p', 'pre', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub',
  'summary', 'sup', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'u', 'ul', 'var',
];

const ALLOWED_ATTR = [
  'href', 'title', 'alt', 'src', 'class', 'align', 'colspan', 'rowspan', 'start', 'lang', 'dir',
  'open', 'role', 'data-tex', 'data-lang', 'aria-checked',
  'aria-disabled', 'aria-label', 'aria-hidden',
];

/** Links the user may open (in the system browser, never in the webview). */
export const SAFE_LINK = /^(https?:\/\/|mailto:)/i;
/** Images shown without asking: inline raster data (SVG too: scripts never run inside <img>). */
const INLINE_IMAGE = /^data:image\/(png|jpe?g|gif|webp|avif|bmp|svg\+xml)[;,]/i;
/** Remote images: shown only after the user allows them. */
export const REMOTE_IMAGE = /^https?:\/\//i;
/** Our own class vocabulary (highlight.js scopes, code languages, renderer classes). */
const SAFE_CLASS = /^(hljs(-[\w-]+)?|language-[\w+#.-]+|md-[\w-]+|math-[\w-]+|task-[\w-]+|[a-z]+_+)$/;

const CONFIG: Config = {
  ALLOWED_TAGS,
  ALLOWED_ATTR,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  // Plain text attributes the renderer writes (TeX source may contain anything, even "javascript:").
  ADD_URI_SAFE_ATTR: ['data-tex', 'data-lang', 'aria-checked', 'aria-disabled', 'aria-label', 'aria-hidden'],
};

function fixLink(node: Element): void {
  const href = node.getAttribute('href') ?? '';
  if (!SAFE_LINK.test(href.trim())) node.removeAttribute('href');
  node.setAttribute('rel', 'noopener noreferrer nofollow');
}

function fixImage(node: Element): void {
  node.removeAttribute('data-remote-src');
  const src = (node.getAttribute('src') ?? '').trim();
  if (INLINE_IMAGE.test(src)) return;
  node.removeAttribute('src');
  if (REMOTE_IMAGE.test(src)) node.setAttribute('data-remote-src', src);
}

function fixClasses(node: Element): void {
  const value = node.getAttribute('class');
  if (value === null) return;
  const kept = value.split(/\s+/).filter((name) => SAFE_CLASS.test(name));
  if (kept.length) node.setAttribute('class', kept.join(' '));
  else node.removeAttribute('class');
}

function afterAttributes(node: Element): void {
  if (node.nodeName === 'A') fixLink(node);
  else ['rel', 'href'].forEach((name) => node.removeAttribute(name));
  if (node.nodeName === 'IMG') fixImage(node);
  else ['src', 'alt', 'data-remote-src'].forEach((name) => node.removeAttribute(name));
  fixClasses(node);
}

let purifier: ReturnType<typeof DOMPurify> | null = null;

function instance(): ReturnType<typeof DOMPurify> {
  if (purifier) return purifier;
  purifier = DOMPurify(window);
  purifier.addHook('afterSanitizeAttributes', afterAttributes);
  return purifier;
}

/** Untrusted HTML → HTML that is safe to assign to `innerHTML` in the app's window. */
export function sanitizeHtml(html: string): string {
  return instance().sanitize(html, CONFIG) as string;
}
