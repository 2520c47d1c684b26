import { Box } from 'ink';
import { Text } from './text.js';
import { memo } from 'react';
import { slashCandidates } from '../input/completion.js';
import { color } from '../theme.js';

const MAX_ROWS = 8;

/** The first row of a window of `MAX_ROWS` over `count` rows that shows `selected`. */
function menuWindowStart(selected: number, count: number): number {
  return Math.max(0, Math.min(selected - MAX_ROWS + 1, count - MAX_ROWS));
}

/**
 * Under the prompt: the `/` menu (slash commands matching the input, the `selected` row marked:
 * ↑/↓ move it, Tab or Enter take it) while typing one, or the last Tab candidates.
 */
export const Suggestions = memo(function Suggestions({ text, candidates, selected = 0 }: { text: string; candidates: readonly string[]; selected?: number }) {
  const commands = slashCandidates(text);
  if (commands.length > 0) {
    const width = Math.max(...commands.map((c) => c.name.length + (c.args ? c.args.length + 1 : 0))) + 1;
    const at = Math.min(selected, commands.length - 1);
    const start = menuWindowStart(at, commands.length);
    const shown = commands.slice(start, start + MAX_ROWS);
    const below = commands.length - start - shown.length;
    return (
      <Box flexDirection="column" paddingX={1}>
        {start > 0 && <Text dimColor>{`  … ${start} more above`}</Text>}
        {shown.map((c, k) => {
          const mine = start + k === at;
          return (
            <Text key={c.name}>
              <Text color={mine ? color('user') : undefined}>{mine ? '❯ ' : '  '}</Text>
              <Text bold inverse={mine}>
                {`/${c.name}${c.args ? ` ${c.args}` : ''}`.padEnd(width + 1)}
              </Text>
              <Text dimColor>{` ${c.description}`}</Text>
            </Text>
          );
        })}
        {below > 0 && <Text dimColor>{`  … ${below} more below`}</Text>}
      </Box>
    );
  }
  if (candidates.length === 0) return null;
  const shownCandidates = candidates.slice(0, MAX_ROWS * 4);
  return (
    <Box paddingX={2} flexDirection="column">
      <Text dimColor>{shownCandidates.join('  ')}</Text>
      {candidates.length > shownCandidates.length && <Text dimColor>{`… ${candidates.length - shownCandidates.length} more`}</Text>}
    </Box>
  );
});
