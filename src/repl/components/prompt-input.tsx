import { Box } from 'ink';
import { Text } from './text.js';
import { memo } from 'react';
import type { EditorState } from '../input/editor.js';
import { color } from '../theme.js';

/** Input lines shown at most; the window follows the cursor. */
export const INPUT_WINDOW_LINES = 12;
export const PLACEHOLDER = 'Type a message · /help for commands';

function cursorPosition(text: string, cursor: number): { line: number; column: number } {
  const before = text.slice(0, cursor);
  const line = before.split('\n').length - 1;
  return { line, column: cursor - (before.lastIndexOf('\n') + 1) };
}

/** The prompt: multi-line text with an inverse-video cursor, in a rounded box; a window of `windowLines` lines (default {@link INPUT_WINDOW_LINES}) follows the cursor. */
export const PromptInput = memo(function PromptInput({
  editor,
  placeholder = PLACEHOLDER,
  windowLines = INPUT_WINDOW_LINES,
}: {
  editor: EditorState;
  placeholder?: string;
  windowLines?: number;
}) {
  const prefix = (i: number) => (
    <Text bold color={color('user')}>
      {i === 0 ? '› ' : '  '}
    </Text>
  );
  if (!editor.text) {
    return (
      <Box borderStyle="round" borderColor={color('muted')} borderDimColor paddingX={1}>
        {prefix(0)}
        <Text>
          <Text inverse>{placeholder[0]}</Text>
          <Text dimColor>{placeholder.slice(1)}</Text>
        </Text>
      </Box>
    );
  }
  const lines = editor.text.split('\n');
  const at = cursorPosition(editor.text, editor.cursor);
  const first = Math.max(0, Math.min(at.line - windowLines + 1, lines.length - windowLines));
  const start = Math.max(0, Math.min(first, at.line));
  const visible = lines.slice(start, start + windowLines);
  const below = lines.length - start - visible.length;
  return (
    <Box borderStyle="round" borderColor={color('muted')} borderDimColor paddingX={1} flexDirection="column">
      {start > 0 && <Text dimColor>{`… ${start} more ${start === 1 ? 'line' : 'lines'} above`}</Text>}
      {visible.map((line, k) => {
        const i = start + k;
        if (i !== at.line) {
          return (
            <Box key={i}>
              {prefix(i)}
              <Box flexShrink={1}>
                <Text>{line || ' '}</Text>
              </Box>
            </Box>
          );
        }
        return (
          <Box key={i}>
            {prefix(i)}
            <Box flexShrink={1}>
              <Text>
                {line.slice(0, at.column)}
                <Text inverse>{line[at.column] ?? ' '}</Text>
                {line.slice(at.column + 1)}
              </Text>
            </Box>
          </Box>
        );
      })}
      {below > 0 && <Text dimColor>{`… ${below} more ${below === 1 ? 'line' : 'lines'} below`}</Text>}
    </Box>
  );
});
