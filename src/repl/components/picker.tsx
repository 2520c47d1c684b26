import { Box } from 'ink';
import { Text } from './text.js';
import { memo } from 'react';
import type { PickerView } from '../state/ui-state.js';
import { displayWidth, padEndColumns } from '../text-width.js';
import { color } from '../theme.js';

/** Rows shown at most; the window follows the selection. */
export const PICKER_ROWS = 10;

/** A list to choose from (sessions for /resume, models for /model); `maxRows` options at most (default {@link PICKER_ROWS}). */
export const Picker = memo(function Picker({ view, maxRows = PICKER_ROWS }: { view: PickerView; maxRows?: number }) {
  const start = Math.max(0, Math.min(view.selected - maxRows + 1, view.options.length - maxRows));
  const rows = view.options.slice(start, start + maxRows);
  const width = Math.max(...rows.map((o) => displayWidth(o.label)));
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={color('accent')} paddingX={1} marginTop={1}>
      <Text bold>{view.title}</Text>
      {start > 0 && <Text dimColor>{`  … ${start} more above`}</Text>}
      {rows.map((o, k) => {
        const selected = start + k === view.selected;
        return (
          <Box key={o.value}>
            <Text color={selected ? color('accent') : undefined} bold={selected}>
              {selected ? '❯ ' : '  '}
              {o.hint ? padEndColumns(o.label, width) : o.label}
            </Text>
            {o.hint ? <Text dimColor>{`  ${o.hint}`}</Text> : null}
          </Box>
        );
      })}
      {start + rows.length < view.options.length && <Text dimColor>{`  … ${view.options.length - start - rows.length} more below`}</Text>}
      <Text dimColor>↑/↓ move · enter select · esc cancel</Text>
    </Box>
  );
});
