import { Box } from 'ink';
import { Text } from './text.js';
import { color } from '../theme.js';

/**
 * A unified diff, coloured by line: additions, removals, hunk headers. Past `maxLines`, one line
 * says how many more there are and `note` how to see them (default: Ctrl+O).
 */
export function DiffView({ diff, maxLines, note = '(ctrl+o to expand)' }: { diff: string; maxLines?: number; note?: string }) {
  const all = diff.replace(/\n$/, '').split('\n');
  const lines = maxLines !== undefined && all.length > maxLines ? all.slice(0, maxLines) : all;
  const hidden = all.length - lines.length;
  return (
    <Box flexDirection="column">
      {lines.map((line, i) => {
        const role =
          line.startsWith('+++') || line.startsWith('---') || line.startsWith('@@')
            ? 'diffHunk'
            : line.startsWith('+')
              ? 'diffAdd'
              : line.startsWith('-')
                ? 'diffRemove'
                : undefined;
        return (
          <Text key={i} color={role ? color(role) : undefined} dimColor={!role}>
            {line || ' '}
          </Text>
        );
      })}
      {hidden > 0 && <Text dimColor>{`… +${hidden} lines${note ? ` ${note}` : ''}`}</Text>}
    </Box>
  );
}
