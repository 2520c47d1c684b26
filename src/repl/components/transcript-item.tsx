import { Box } from 'ink';
import { Text } from './text.js';
import { classifyText, type MarkdownLine } from '../markdown/markdown-lines.js';
import type { NewItem, NoticeTone, TranscriptItem } from '../state/ui-state.js';
import { color, type Role } from '../theme.js';
import { BlockView } from './block-view.js';
import { DiffView } from './diff-view.js';
import { ErrorCard } from './error-card.js';
import { MarkdownView } from './markdown-view.js';
import { ToolCard } from './tool-card.js';

const TONE: Record<NoticeTone, { glyph: string; role?: Role; dim?: boolean }> = {
  info: { glyph: '•', role: 'accent' },
  success: { glyph: '✓', role: 'success' },
  warning: { glyph: '!', role: 'warning' },
  error: { glyph: '✗', role: 'error' },
  muted: { glyph: '·', dim: true },
};

export function Notice({ text, tone }: { text: string; tone: NoticeTone }) {
  const t = TONE[tone];
  return (
    <Box marginTop={1}>
      <Text color={t.role ? color(t.role) : undefined} dimColor={t.dim}>
        {t.glyph} {text}
      </Text>
    </Box>
  );
}

export function UserPrompt({ text, attachments }: { text: string; attachments: readonly string[] }) {
  return (
    <Box flexDirection="column" marginTop={1}>
      <Box>
        <Text bold color={color('user')}>
          {'› '}
        </Text>
        <Box flexShrink={1}>
          <Text>{text}</Text>
        </Box>
      </Box>
      {attachments.length > 0 && <Text dimColor>{`  attached: ${attachments.join(', ')}`}</Text>}
    </Box>
  );
}

/**
 * The style of the transcript's `<Static>` box. Its box is absolutely positioned; without a width
 * Yoga lets wrapped text run a word or two past the terminal's width (the terminal then breaks
 * those lines again). Shared by the app and the plain-scrollback renderer (scrollback.ts).
 */
export const TRANSCRIPT_STYLE = { width: '100%' } as const;

const replayedLines = new WeakMap<object, MarkdownLine[]>();

/** The lines of a replayed segment, classified once per item (a redraw at a new width reuses them). */
function linesOf(item: Extract<NewItem, { kind: 'replayed' }>): MarkdownLine[] {
  let lines = replayedLines.get(item);
  if (!lines) {
    lines = classifyText(item.text);
    replayedLines.set(item, lines);
  }
  return lines;
}

/** One finished transcript item, rendered once into `<Static>`. */
export function TranscriptItemView({ item }: { item: TranscriptItem }) {
  switch (item.kind) {
    case 'banner':
      return (
        <Box flexDirection="column">
          <Text>
            <Text bold color={color('accent')}>
              keen
            </Text>
            <Text dimColor>{` ${item.version} · ${item.cwd}`}</Text>
          </Text>
          <Text dimColor>/help for commands · Ctrl+C twice to exit</Text>
        </Box>
      );
    case 'user':
      return <UserPrompt text={item.text} attachments={item.attachments} />;
    case 'markdown':
      return <MarkdownView lines={item.lines} lead={item.lead} />;
    case 'replayed':
      return <MarkdownView lines={linesOf(item)} lead />;
    case 'tool':
      return <ToolCard card={item.card} expanded={item.expanded} />;
    case 'notice':
      return <Notice text={item.text} tone={item.tone} />;
    case 'error':
      return <ErrorCard title={item.title} message={item.message} />;
    case 'block':
      return <BlockView title={item.title} lines={item.lines} palette={item.palette} />;
    case 'diff':
      return (
        <Box flexDirection="column" marginTop={1}>
          <Text bold>{item.title}</Text>
          <Box paddingLeft={2} flexDirection="column">
            <DiffView diff={item.diff} />
          </Box>
        </Box>
      );
  }
}
