import { Box } from 'ink';
import { Text } from './text.js';
import { memo } from 'react';
import { useTerminalSize } from './bounded-frame.js';
import { shownOptions } from '../state/picker-filter.js';
import type { PickerOption, PickerView } from '../state/ui-state.js';
import { displayWidth } from '../text-width.js';
import { color } from '../theme.js';

/** Rows shown at most; the window follows the selection. */
export const PICKER_ROWS = 10;

/** Columns the picker's box takes around its text: the border and the padding. */
const BOX_COLUMNS = 4;
/** The `❯ ` or two spaces in front of each option. */
const MARK_COLUMNS = 2;

/** `text` cut to `width` terminal columns (as drawn: measured after the sanitiser), `…` marking the cut. */
export function fitColumns(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  let out = '';
  let used = 0;
  for (const ch of text) {
    const w = displayWidth(ch);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return `${out}…`;
}

/**
 * One option as one line of `width` columns at most: the label (padded to `labelWidth` so hints
 * line up), then the hint; when both do not fit, the hint gets at most three tenths of the line and
 * the label the rest, each cut with `…`. A row never wraps, so the picker's height is its rows
 * (live-bound.ts counts it that way).
 */
export function fitRow(option: PickerOption, labelWidth: number, width: number): { label: string; hint: string } {
  const hint = option.hint ?? '';
  if (!hint) return { label: fitColumns(option.label, width), hint: '' };
  const hintWidth = displayWidth(hint);
  const natural = Math.max(labelWidth, displayWidth(option.label));
  if (natural + 2 + hintWidth <= width) return { label: option.label + ' '.repeat(natural - displayWidth(option.label)), hint: `  ${hint}` };
  const hintRoom = Math.min(hintWidth, Math.floor((width * 3) / 10));
  const labelRoom = Math.max(1, width - 2 - hintRoom);
  const label = fitColumns(option.label, labelRoom);
  const padded = label + ' '.repeat(Math.max(0, Math.min(labelRoom, labelWidth) - displayWidth(label)));
  const rest = width - displayWidth(padded) - 2;
  return { label: padded, hint: rest > 0 ? `  ${fitColumns(hint, rest)}` : '' };
}

/**
 * A list to choose from (sessions for /resume, models for /model, messages for /rewind), one line
 * per option at any width; `maxRows` options at most (default {@link PICKER_ROWS}). Typing filters
 * it (state/picker-filter.ts); the hint line shows the filter.
 */
export const Picker = memo(function Picker({ view, maxRows = PICKER_ROWS, columns }: { view: PickerView; maxRows?: number; columns?: number }) {
  const terminal = useTerminalSize();
  const inner = Math.max(1, (columns ?? terminal.columns) - BOX_COLUMNS);
  const options = shownOptions(view);
  const start = Math.max(0, Math.min(view.selected - maxRows + 1, options.length - maxRows));
  const rows = options.slice(start, start + maxRows);
  const labelWidth = Math.max(0, ...rows.map((o) => displayWidth(o.label)));
  const filter = view.filter ?? '';
  const keys = '↑/↓ move · enter select · esc cancel';
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={color('accent')} paddingX={1} marginTop={1}>
      <Text bold>{fitColumns(view.title, inner)}</Text>
      {start > 0 && <Text dimColor>{`  … ${start} more above`}</Text>}
      {rows.length === 0 && <Text dimColor>{fitColumns(`  nothing matches "${filter}"`, inner)}</Text>}
      {rows.map((o, k) => {
        const selected = start + k === view.selected;
        const row = fitRow(o, labelWidth, inner - MARK_COLUMNS);
        return (
          <Box key={o.value}>
            <Text color={selected ? color('accent') : undefined} bold={selected}>
              {selected ? '❯ ' : '  '}
              {row.label}
            </Text>
            {row.hint ? <Text dimColor>{row.hint}</Text> : null}
          </Box>
        );
      })}
      {start + rows.length < options.length && <Text dimColor>{`  … ${options.length - start - rows.length} more below`}</Text>}
      <Text dimColor>{fitColumns(filter ? `filter: ${filter} · ${keys}` : `type to filter · ${keys}`, inner)}</Text>
    </Box>
  );
});
