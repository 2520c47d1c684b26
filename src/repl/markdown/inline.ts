/**
 * Inline Markdown of one line: `code`, **bold**, *italic* / _italic_, ~~strike~~ and
 * [links](url). Anything that does not close on the same line stays literal, so a half-streamed
 * line never swallows the rest of the text. Pure; never throws.
 */

export type SpanStyle = 'plain' | 'bold' | 'italic' | 'code' | 'strike' | 'link' | 'url';

export interface Span {
  text: string;
  style: SpanStyle;
}

function push(spans: Span[], text: string, style: SpanStyle): void {
  if (!text) return;
  const last = spans[spans.length - 1];
  if (last && last.style === style) last.text += text;
  else spans.push({ text, style });
}

const WORD = /[A-Za-z0-9]/;

/** Spans of `text`; joining their texts gives the visible line (markers removed). */
export function parseInline(text: string): Span[] {
  const spans: Span[] = [];
  let i = 0;
  let plainStart = 0;
  const flushPlain = (to: number) => push(spans, text.slice(plainStart, to), 'plain');

  while (i < text.length) {
    const ch = text[i];
    if (ch === '\\' && i + 1 < text.length && /[\\`*_~[\]()#>!-]/.test(text[i + 1])) {
      flushPlain(i);
      push(spans, text[i + 1], 'plain');
      i += 2;
      plainStart = i;
      continue;
    }
    if (ch === '`') {
      let run = 1;
      while (text[i + run] === '`') run++;
      const fence = '`'.repeat(run);
      const end = text.indexOf(fence, i + run);
      if (end > i + run - 1 && end !== -1) {
        flushPlain(i);
        let inner = text.slice(i + run, end);
        if (inner.startsWith(' ') && inner.endsWith(' ') && inner.trim()) inner = inner.slice(1, -1);
        push(spans, inner, 'code');
        i = end + run;
        plainStart = i;
        continue;
      }
      i += run;
      continue;
    }
    if ((ch === '*' || ch === '_') && text[i + 1] === ch) {
      const marker = ch + ch;
      const end = text.indexOf(marker, i + 2);
      if (end > i + 2 && text[i + 2] !== ' ' && text[end - 1] !== ' ') {
        flushPlain(i);
        for (const s of parseInline(text.slice(i + 2, end))) push(spans, s.text, s.style === 'plain' ? 'bold' : s.style);
        i = end + 2;
        plainStart = i;
        continue;
      }
    }
    if ((ch === '*' || ch === '_') && text[i + 1] !== ch && text[i + 1] !== ' ' && text[i + 1] !== undefined) {
      const openOk = ch === '*' || i === 0 || !WORD.test(text[i - 1]);
      let end = -1;
      for (let j = i + 1; j < text.length; j++) {
        if (text[j] === ch && text[j - 1] !== ' ' && text[j + 1] !== ch && (ch === '*' || j + 1 >= text.length || !WORD.test(text[j + 1]))) {
          end = j;
          break;
        }
      }
      if (openOk && end > i + 1) {
        flushPlain(i);
        push(spans, text.slice(i + 1, end), 'italic');
        i = end + 1;
        plainStart = i;
        continue;
      }
    }
    if (ch === '~' && text[i + 1] === '~') {
      const end = text.indexOf('~~', i + 2);
      if (end > i + 2) {
        flushPlain(i);
        push(spans, text.slice(i + 2, end), 'strike');
        i = end + 2;
        plainStart = i;
        continue;
      }
    }
    if (ch === '[') {
      const close = text.indexOf('](', i + 1);
      const end = close < 0 ? -1 : text.indexOf(')', close + 2);
      if (close > i + 1 && end > close + 2 && !text.slice(i + 1, close).includes('[')) {
        flushPlain(i);
        const label = text.slice(i + 1, close);
        const url = text.slice(close + 2, end);
        push(spans, label, 'link');
        if (url !== label) push(spans, ` (${url})`, 'url');
        i = end + 1;
        plainStart = i;
        continue;
      }
    }
    i++;
  }
  flushPlain(text.length);
  return spans;
}
