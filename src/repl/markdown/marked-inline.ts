/**
 * Inline Markdown of a finished block from marked's inline tokens: `code`, **bold**, *italic*,
 * ~~strike~~, links (label, then the url when it differs) and images (alt text). Raw HTML and
 * anything unknown keep their source text, so nothing the model wrote disappears. Pure.
 */
import type { Token } from 'marked';
import type { Span, SpanStyle } from './inline.js';

function push(spans: Span[], text: string, style: SpanStyle): void {
  if (!text) return;
  const last = spans[spans.length - 1];
  if (last && last.style === style) last.text += text;
  else spans.push({ text, style });
}

/** Nested styles collapse to the innermost non-plain one, as the streaming parser does. */
function walk(tokens: readonly Token[], spans: Span[], outer: SpanStyle): void {
  const inner = (t: { tokens?: Token[]; text?: string }, style: SpanStyle) => {
    if (t.tokens?.length) walk(t.tokens, spans, style);
    else push(spans, t.text ?? '', style);
  };
  for (const t of tokens) {
    switch (t.type) {
      case 'strong':
        inner(t, 'bold');
        break;
      case 'em':
        inner(t, 'italic');
        break;
      case 'del':
        inner(t, 'strike');
        break;
      case 'codespan':
        push(spans, t.text, 'code');
        break;
      case 'br':
        push(spans, '\n', outer);
        break;
      case 'link':
        inner(t, 'link');
        if (t.href !== t.text && `mailto:${t.text}` !== t.href) push(spans, ` (${t.href})`, 'url');
        break;
      case 'image':
        push(spans, t.text || t.href, 'link');
        break;
      case 'escape':
        push(spans, t.text, outer);
        break;
      case 'text':
        if ('tokens' in t && t.tokens?.length) walk(t.tokens, spans, outer);
        else push(spans, t.text, outer);
        break;
      default:
        push(spans, 'raw' in t ? t.raw : '', outer);
    }
  }
}

/** Spans of marked inline tokens; joining their texts gives the visible text (markers removed). */
export function spansOf(tokens: readonly Token[] | undefined): Span[] {
  const spans: Span[] = [];
  walk(tokens ?? [], spans, 'plain');
  return spans;
}
