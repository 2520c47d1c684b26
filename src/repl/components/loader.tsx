import { Box } from 'ink';
import { Text } from './text.js';
import { useSpinner } from '../hooks/use-spinner.js';
import { statusDetails } from '../state/status-line.js';
import type { Busy } from '../state/ui-state.js';
import { color } from '../theme.js';

function hintFor(busy: Busy): string {
  if (busy.kind === 'compact' || busy.autoCompacting) return 'esc to cancel';
  if (busy.kind === 'chat') return 'ctrl+c to interrupt';
  return '';
}

/**
 * The one spinner of the screen with its status line: what runs (`Thinking…`, `Responding…`,
 * `Running bash…`, `Compacting...`), for how long, and the tokens so far. An automatic compaction
 * changes the text of this loader; it never starts a second spinner. The spinner's tick redraws
 * it, so the seconds move; `now` is the clock (tests pass their own).
 */
export function Loader({ busy, now = Date.now }: { busy: Busy; now?: () => number }) {
  const frame = useSpinner();
  const hint = hintFor(busy);
  const details = statusDetails(busy, now());
  return (
    <Box marginTop={1}>
      <Text color={color('accent')}>{frame} </Text>
      <Text>{busy.status}</Text>
      {details ? <Text dimColor>{` ${details}`}</Text> : null}
      {hint ? <Text dimColor>{` (${hint})`}</Text> : null}
    </Box>
  );
}
