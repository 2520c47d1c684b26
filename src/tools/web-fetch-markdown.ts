import TurndownService from 'turndown';

let service: TurndownService | undefined;

/**
 * Deepest element nesting the converter is given. The HTML parser slows down with depth and the
 * converter recurses per element, so a page nested thousands deep would block the process for
 * minutes and then overflow the stack; real pages stay far below this.
 */
export const MAX_HTML_DEPTH = 200;

/**
 * HTML → Markdown (turndown), without scripts, styles and other non-content elements. A page
 * nested deeper than {@link MAX_HTML_DEPTH} comes back as its plain text, with a note saying so.
 */
export function htmlToMarkdown(html: string): string {
  if (nestingDepth(html) > MAX_HTML_DEPTH) {
    return `Note: the page nests elements more than ${MAX_HTML_DEPTH} deep; its text is shown without formatting.\n\n${plainText(html)}`;
  }
  if (!service) {
    service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
    service.remove(['script', 'style', 'noscript', 'iframe', 'template', 'svg', 'head'] as unknown as TurndownService.Filter);
  }
  return service
    .turndown(html)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr', 'keygen', 'basefont', 'frame']);
/** Elements a next sibling closes implicitly (`<li>a<li>b`): counting them would see nesting that is not there. */
const OPTIONAL_END = new Set(['p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'option', 'optgroup', 'rb', 'rt', 'rtc', 'rp', 'colgroup', 'caption', 'html', 'head', 'body']);
/** Elements whose content is not markup. */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'noscript', 'iframe', 'noembed', 'noframes', 'plaintext', 'template', 'svg']);
const DROPPED = new Set(['script', 'style', 'noscript', 'iframe', 'template', 'svg', 'head', 'title', 'noembed', 'noframes']);

type Token = { kind: 'text'; text: string } | { kind: 'open' | 'close'; name: string; selfClosing: boolean } | { kind: 'raw'; name: string; text: string };

/** The page's tags and text in one forward pass (each step moves on: linear in the page's length). */
function* tokens(html: string): Generator<Token> {
  const lower = html.toLowerCase();
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      yield { kind: 'text', text: html.slice(i) };
      return;
    }
    if (lt > i) yield { kind: 'text', text: html.slice(i, lt) };
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      if (end < 0) return;
      i = end + 3;
      continue;
    }
    const m = /^<(\/?)([A-Za-z][\w:-]*)/.exec(html.slice(lt, lt + 64));
    const gt = html.indexOf('>', lt + 1);
    if (gt < 0) return;
    if (!m) {
      // `<!doctype>`, `<?xml?>`, or a `<` that starts no tag.
      if (!/^<[!?]/.test(html.slice(lt, lt + 2))) yield { kind: 'text', text: '<' };
      i = /^<[!?]/.test(html.slice(lt, lt + 2)) ? gt + 1 : lt + 1;
      continue;
    }
    const name = m[2].toLowerCase();
    i = gt + 1;
    if (m[1]) {
      yield { kind: 'close', name, selfClosing: false };
      continue;
    }
    const selfClosing = html[gt - 1] === '/';
    if (RAW_TEXT.has(name) && !selfClosing) {
      const end = lower.indexOf(`</${name}`, i);
      const stop = end < 0 ? html.length : end;
      yield { kind: 'raw', name, text: html.slice(i, stop) };
      const close = end < 0 ? -1 : html.indexOf('>', end);
      i = close < 0 ? html.length : close + 1;
      continue;
    }
    yield { kind: 'open', name, selfClosing };
  }
}

/** How deep the page's elements nest, as its tags say (implicitly closed and void elements left out). */
function nestingDepth(html: string): number {
  let depth = 0;
  let max = 0;
  for (const t of tokens(html)) {
    if ((t.kind !== 'open' && t.kind !== 'close') || VOID.has(t.name) || OPTIONAL_END.has(t.name)) continue;
    if (t.kind === 'open' && !t.selfClosing) max = Math.max(max, ++depth);
    else if (t.kind === 'close') depth = Math.max(0, depth - 1);
  }
  return max;
}

const BLOCK = /^(p|div|br|li|ul|ol|tr|table|h[1-6]|pre|blockquote|section|article|header|footer|nav|main|dd|dt|dl|hr|form|figure|aside|details|summary)$/;

/** The page's text: tags removed (blocks as line breaks), scripts and styles dropped, entities decoded. */
function plainText(html: string): string {
  const parts: string[] = [];
  for (const t of tokens(html)) {
    if (t.kind === 'text') parts.push(decodeEntities(t.text.replace(/\s+/g, ' ')));
    else if (t.kind === 'raw') parts.push(DROPPED.has(t.name) ? '' : decodeEntities(t.text));
    else if (BLOCK.test(t.name)) parts.push('\n');
  }
  return parts
    .join('')
    .replace(/[ \t]*\n[ \t\n]*/g, (s) => (s.split('\n').length > 2 ? '\n\n' : '\n'))
    .trim();
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (whole, body: string) => {
    if (body[0] !== '#') return NAMED[body.toLowerCase()] ?? whole;
    const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}
