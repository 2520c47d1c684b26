import { Text } from './text.js';
import type { Token } from '../markdown/highlight.js';
import type { Span } from '../markdown/inline.js';
import { color, type Role } from '../theme.js';

/** Inline Markdown spans as nested Ink text. */
export function Spans({ spans, bold, role }: { spans: readonly Span[]; bold?: boolean; role?: Role }) {
  return (
    <Text bold={bold} color={role ? color(role) : undefined}>
      {spans.map((s, i) => {
        switch (s.style) {
          case 'bold':
            return (
              <Text key={i} bold>
                {s.text}
              </Text>
            );
          case 'italic':
            return (
              <Text key={i} italic>
                {s.text}
              </Text>
            );
          case 'code':
            return (
              <Text key={i} color={color('code')}>
                {s.text}
              </Text>
            );
          case 'strike':
            return (
              <Text key={i} strikethrough>
                {s.text}
              </Text>
            );
          case 'link':
            return (
              <Text key={i} color={color('link')} underline>
                {s.text}
              </Text>
            );
          case 'url':
            return (
              <Text key={i} dimColor>
                {s.text}
              </Text>
            );
          default:
            return s.text;
        }
      })}
    </Text>
  );
}

const TOKEN_ROLE: Record<Token['kind'], Role | undefined> = {
  plain: undefined,
  keyword: 'keyword',
  string: 'string',
  number: 'number',
  comment: 'comment',
  type: 'type',
  add: 'diffAdd',
  remove: 'diffRemove',
  hunk: 'diffHunk',
};

/** Highlighted code tokens as nested Ink text. */
export function Tokens({ tokens }: { tokens: readonly Token[] }) {
  if (tokens.length === 0) return <Text> </Text>;
  return (
    <Text>
      {tokens.map((t, i) => {
        const role = TOKEN_ROLE[t.kind];
        if (!role) return t.text;
        return (
          <Text key={i} color={color(role)} italic={t.kind === 'comment'} dimColor={t.kind === 'comment' && !color(role)}>
            {t.text}
          </Text>
        );
      })}
    </Text>
  );
}
