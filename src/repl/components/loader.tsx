import { Box } from 'ink';
import { Text } from './text.js';
import { useSpinner } from '../hooks/use-spinner.js';
import type { Busy } from '../state/ui-state.js';
import { color } from '../theme.js';

function hintFor(busy: Busy): string {
  if (busy.kind === 'compact' || busy.autoCompacting) return 'esc to cancel';
  if (busy.kind === 'chat') return 'ctrl+c to interrupt';
  return '';
}

/**
 * The one spinner of the screen with its status text. An automatic compaction changes the text
 * of this loader to `Compacting...`; it never starts a second spinner.
 */
export function Loader({ busy }: { busy: Busy }) {
  const frame = useSpinner();
  const hint = hintFor(busy);
  return (
    <Box marginTop={1}>
      <Text color={color('accent')}>{frame} </Text>
      <Text>{busy.status}</Text>
      {hint ? <Text dimColor>{` (${hint})`}</Text> : null}
    </Box>
  );
}
