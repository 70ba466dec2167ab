// Hostile inputs for everything that shows untrusted text: model output, tool results, server
// names, conversation titles, exports. Each payload, if it ever executes, calls
// `window.__xss(<id>)` (or navigates/loads a resource); tests check both the DOM (no script, no
// on* attribute, no javascript: URL, no frame, no style) and, in a real browser, that `__xss` was
// never called. Markdown-specific tricks are included because the same strings go through the
// Markdown renderer.

export type XssPayload = { id: string; payload: string };

const raw: string[] = [
  // Script elements
  '<script>__xss(1)</script>',
  '<SCRIPT SRC=//evil.example/x.js></SCRIPT>',
  '<script src="data:text/javascript,__xss(3)"></script>',
  '<scr<script>ipt>__xss(4)</scr</script>ipt>',
  '<script\n>__xss(5)</script\n>',
  '<<script>__xss(6);//<</script>',
  '<script type="module">__xss(7)</script>',
  '"><script>__xss(8)</script>',
  "'><script>__xss(9)</script>",
  '</title><script>__xss(10)</script>',
  '</textarea><script>__xss(11)</script>',
  '<noscript><p title="</noscript><img src=x onerror=__xss(12)>">',
  // Event handlers
  '<img src=x onerror=__xss(13)>',
  '<img src="x" onerror="__xss(14)">',
  '<IMG SRC=x OnErRoR=__xss(15)>',
  '<img/src=x/onerror=__xss(16)>',
  '<img src=x onerror=&#95;&#95;xss(17)>',
  '<body onload=__xss(18)>',
  '<div onmouseover="__xss(19)">hover</div>',
  '<a onclick="__xss(20)">click</a>',
  '<p onpointerenter=__xss(21)>x</p>',
  '<input autofocus onfocus=__xss(22)>',
  '<select autofocus onfocus=__xss(23)></select>',
  '<textarea autofocus onfocus=__xss(24)></textarea>',
  '<details open ontoggle=__xss(25)>',
  '<video><source onerror=__xss(26)></video>',
  '<audio src=x onerror=__xss(27)>',
  '<marquee onstart=__xss(28)>x</marquee>',
  '<button onclick=__xss(29)>b</button>',
  '<form><button formaction=javascript:__xss(30)>x</button></form>',
  '<div style="animation-name:x" onanimationstart=__xss(31)></div>',
  '<keygen autofocus onfocus=__xss(32)>',
  '<span onmouseenter=__xss(33) class="md-copy">x</span>',
  '<table background="javascript:__xss(34)"><tr><td>x</td></tr></table>',
  '<img src="x` `<script>__xss(35)</script>"` `>',
  '<img """><script>__xss(36)</script>">',
  '<img src=x:alert(1) onerror=eval(atob("X194c3MoMzcp"))>',
  '<x onclick=__xss(38)>click me</x>',
  '<body><img src=x onerror="this.ownerDocument.defaultView.__xss(39)">',
  '<div/onmouseover=\'__xss(40)\'>x</div>',
  // javascript: and data: URLs
  '<a href="javascript:__xss(41)">link</a>',
  '<a href="JaVaScRiPt:__xss(42)">link</a>',
  '<a href=" javascript:__xss(43)">link</a>',
  '<a href="jav&#x09;ascript:__xss(44)">link</a>',
  '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;__xss(45)">x</a>',
  '<a href="java\0script:__xss(46)">x</a>',
  '<a href="data:text/html,<script>__xss(47)</script>">x</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5fX3hzcyg0OCk8L3NjcmlwdD4=">x</a>',
  '<a href="vbscript:__xss(49)">x</a>',
  '<iframe src="javascript:__xss(50)"></iframe>',
  '<img src="javascript:__xss(51)">',
  '<a href="#/settings/providers">in-app navigation</a>',
  '<a href="file:///etc/passwd">file</a>',
  '<a href="ipc://localhost/app_info">ipc</a>',
  '<a href="tauri://localhost/index.html">tauri</a>',
  '<a href="https://ok.example" target="_self" ping="https://evil.example/ping">target</a>',
  '<form action="javascript:__xss(57)"><input type=submit></form>',
  '<isindex action=javascript:__xss(58) type=image>',
  '<math><a xlink:href="javascript:__xss(59)">click</a></math>',
  '<object data="javascript:__xss(60)"></object>',
  // SVG and MathML
  '<svg onload=__xss(61)>',
  '<svg><script>__xss(62)</script></svg>',
  '<svg><a xlink:href="javascript:__xss(63)"><text x=20 y=20>x</text></a></svg>',
  '<svg><animate onbegin=__xss(64) attributeName=x dur=1s>',
  '<svg><set attributeName=href to="javascript:__xss(65)"/></svg>',
  '<svg><foreignObject><iframe srcdoc="<script>parent.__xss(66)</script>"></iframe></foreignObject></svg>',
  '<svg><style>@import "https://evil.example/x.css";</style></svg>',
  '<svg><use href="data:image/svg+xml,<svg id=x onload=__xss(68)>#x"/></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=__xss(69)></style></mglyph></table></mtext></math>',
  '<math><mi xlink:href="data:x,<script>__xss(70)</script>">x</mi></math>',
  '<svg></p><style><a id="</style><img src=1 onerror=__xss(71)>">',
  '<math><mtext><h1><a><h6></a></h6><mglyph><svg><mtext><style><a title="</style><img src onerror=__xss(72)>"></style></svg></mglyph></h1></mtext></math>',
  '<svg><desc><template><img src=x onerror=__xss(73)></template></desc></svg>',
  '<form><math><mtext></form><form><mglyph><style></math><img src onerror=__xss(74)>',
  // Frames, embeds, meta, base
  '<iframe src="https://evil.example"></iframe>',
  '<iframe srcdoc="<script>parent.__xss(76)</script>"></iframe>',
  '<embed src="javascript:__xss(77)">',
  '<object data="data:text/html,<script>__xss(78)</script>"></object>',
  '<frameset><frame src="javascript:__xss(79)"></frameset>',
  '<meta http-equiv="refresh" content="0;url=javascript:__xss(80)">',
  '<base href="javascript:__xss(81)//">',
  '<link rel="stylesheet" href="https://evil.example/x.css">',
  '<portal src="https://evil.example"></portal>',
  '<template><script>__xss(84)</script></template>',
  // Style injection
  '<style>body{background:url("https://evil.example/track")}</style>',
  '<div style="background:url(javascript:__xss(86))">x</div>',
  '<div style="position:fixed;inset:0;z-index:9999;background:red">overlay</div>',
  '<p style="behavior:url(x.htc)">x</p>',
  '<style>@import url("https://evil.example/x.css");</style>',
  '<div class="toast" id="settings-panel" name="appInfo">clobber</div>',
  '<img name="getElementById" src="data:image/png;base64,iVBORw0KGgo=">',
  '<form id="test"><input name="attributes"></form>',
  // Malformed HTML
  '<img src="x" onerror="__xss(93)"',
  '<a href="https://ok.example"onmouseover=__xss(94)>x</a>',
  '<div <img src=x onerror=__xss(95)>>',
  '<!--><img src=x onerror=__xss(96)>-->',
  '<![CDATA[><img src=x onerror=__xss(97)>]]>',
  '<title><img src=x onerror=__xss(98)></title>',
  '<xmp><img src=x onerror=__xss(99)></xmp>',
  '<plaintext><img src=x onerror=__xss(100)>',
  '<noembed><img src=x onerror=__xss(101)></noembed>',
  '<?xml version="1.0"?><img src=x onerror=__xss(102)>',
  '<img src=`x` onerror=`__xss(103)`>',
  '<a href="https://ok.example/a b"onclick=__xss(104)>x</a>',
  // Markdown link and image tricks
  '[click](javascript:__xss(105))',
  '[click](JAVASCRIPT:__xss(106))',
  '[click](javascript&#58;__xss(107))',
  '[click]( javascript:__xss(108) )',
  '[click](<javascript:__xss(109)>)',
  '[click](data:text/html;base64,PHNjcmlwdD5fX3hzcygxMTApPC9zY3JpcHQ+)',
  '[click][ref]\n\n[ref]: javascript:__xss(111)',
  '![img](javascript:__xss(112))',
  '![img](x" onerror="__xss(113))',
  '![img](https://evil.example/track.png)',
  '<javascript:__xss(115)>',
  '[a](https://ok.example "title\\" onmouseover=\\"__xss(116)")',
  '[![img](x)](javascript:__xss(117))',
  '```html\n<script>__xss(118)</script>\n```',
  '`<img src=x onerror=__xss(119)>`',
  '$\\href{javascript:__xss(120)}{x}$',
  '$$\\htmlStyle{color:red}{x}\\url{javascript:__xss(121)}$$',
  '| a | b |\n|---|---|\n| <img src=x onerror=__xss(122)> | <script>__xss(122)</script> |',
  '- [x] <img src=x onerror=__xss(123)>',
  '> <iframe src="javascript:__xss(124)"></iframe>',
];

/** The corpus: over a hundred payloads, each with a stable id. */
export const XSS_CORPUS: readonly XssPayload[] = raw.map((payload, i) => ({
  id: `xss-${String(i + 1).padStart(3, '0')}`,
  payload,
}));

const FORBIDDEN =
  'script, iframe, frame, frameset, object, embed, style, link, meta, base, form, input, button:not([data-action]), textarea, select, svg, math, template, portal, video, audio, source';

/**
 * Everything under `root` that would let a payload run, phone home or pose as the app. KaTeX's
 * own output (inside `.katex`, a class the sanitizer never lets through) may use MathML, SVG and
 * CSSOM styles; the TeX it typesets is checked by KaTeX's `trust: false`. With `appChrome`, the
 * app's own ids and buttons are allowed (for checking a component that shows hostile text).
 */
export function dangerousBits(root: ParentNode, options: { appChrome?: boolean } = {}): string[] {
  const found: string[] = [];
  const forbidden = options.appChrome ? FORBIDDEN.replace('button:not([data-action]), ', '') : FORBIDDEN;
  const own = (el: Element) => el.closest('.katex') === null;
  root.querySelectorAll(forbidden).forEach((el) => {
    if (own(el)) found.push(`<${el.localName}>`);
  });
  root.querySelectorAll('*').forEach((el) => {
    if (!own(el)) return;
    for (const attr of Array.from(el.attributes)) {
      const name = attr.name.toLowerCase();
      const value = attr.value.replace(/[\s\0]/g, '').toLowerCase();
      if (name.startsWith('on')) found.push(`${el.localName}[${name}]`);
      if (name === 'style') found.push(`${el.localName}[style]`);
      if ((name === 'id' && !options.appChrome) || name === 'name') found.push(`${el.localName}[${name}]`);
      if (name === 'target' || name === 'ping' || name === 'formaction') found.push(`${el.localName}[${name}]`);
      if (/^(javascript|vbscript|data:text|file|ipc|tauri):?/.test(value) && /^(href|src|action|xlink:href|data|srcdoc|background|poster)$/.test(name)) {
        found.push(`${el.localName}[${name}=${attr.value}]`);
      }
      if (name === 'href' && !/^(https?:|mailto:)/.test(value)) found.push(`${el.localName}[href=${attr.value}]`);
      if (name === 'src' && !value.startsWith('data:image/')) found.push(`${el.localName}[src=${attr.value}]`);
    }
  });
  return found;
}
