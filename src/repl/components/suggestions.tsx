import { Box } from 'ink';
import { Text } from './text.js';
import { memo } from 'react';
import { slashCandidates } from '../input/completion.js';

const MAX_ROWS = 8;

/** Under the prompt: matching slash commands while typing one, or the last Tab candidates. */
export const Suggestions = memo(function Suggestions({ text, candidates }: { text: string; candidates: readonly string[] }) {
  const commands = slashCandidates(text);
  if (commands.length > 0) {
    const width = Math.max(...commands.map((c) => c.name.length + (c.args ? c.args.length + 1 : 0))) + 1;
    return (
      <Box flexDirection="column" paddingX={2}>
        {commands.slice(0, MAX_ROWS).map((c) => (
          <Text key={c.name}>
            <Text bold>{`/${c.name}${c.args ? ` ${c.args}` : ''}`.padEnd(width + 1)}</Text>
            <Text dimColor>{` ${c.description}`}</Text>
          </Text>
        ))}
      </Box>
    );
  }
  if (candidates.length === 0) return null;
  const shown = candidates.slice(0, MAX_ROWS * 4);
  return (
    <Box paddingX={2} flexDirection="column">
      <Text dimColor>{shown.join('  ')}</Text>
      {candidates.length > shown.length && <Text dimColor>{`… ${candidates.length - shown.length} more`}</Text>}
    </Box>
  );
});
