/** The picker: one line per option at any width, and the filter typed into it. */
import { Box } from 'ink';
import { cleanup, render } from 'ink-testing-library';
import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import { fitColumns, Picker } from '../../src/repl/components/picker.js';
import { selectedOption, shownOptions } from '../../src/repl/state/picker-filter.js';
import { initialUiState, uiReducer } from '../../src/repl/state/ui-reducer.js';
import type { UiAction } from '../../src/repl/state/ui-state.js';

afterEach(() => cleanup());

const options = Array.from({ length: 6 }, (_, i) => ({
  value: `id-${i}`,
  label: `${i + 2} hours ago ${i === 3 ? 'Fix the Zebra importer' : `Explain module ${i}`} and tell me in detail what every function in it does`,
  hint: `${i + 1} turns · 20261201-2300${i}0-abcdef`,
}));
const open: UiAction = { type: 'picker-open', picker: { kind: 'resume', title: 'Resume a session', options } };

describe('the picker', () => {
  it('draws one line per option within the width, the title and the selection included', () => {
    for (const columns of [40, 60, 100]) {
      const frame = render(
        <Box width={columns}>
          <Picker view={{ kind: 'resume', title: 'Resume a session', options, selected: 2 }} columns={columns} />
        </Box>,
      ).lastFrame()!;
      const lines = frame.split('\n');
      // margin, border, title, six options, hint, border
      expect(lines, frame).toHaveLength(11);
      for (const l of lines) expect(stringWidth(l)).toBeLessThanOrEqual(columns);
      expect(lines[2]).toContain('Resume a session');
      expect(lines[5]).toContain('❯ 4 hours ago');
    }
  });

  it('cuts by display width, wide characters included', () => {
    expect(fitColumns('日本語のタイトル', 7)).toBe('日本語…');
    expect(fitColumns('short', 7)).toBe('short');
  });

  it('filters as you type: every word, any case, label or hint; Enter takes the selected match', () => {
    let s = [open].reduce(uiReducer, initialUiState());
    s = uiReducer(s, { type: 'picker-move', delta: 4 });
    s = uiReducer(s, { type: 'picker-filter', filter: 'zebra IMPORT' });
    expect(shownOptions(s.picker!).map((o) => o.value)).toEqual(['id-3']);
    expect(s.picker!.selected).toBe(0);
    expect(selectedOption(s.picker!)?.value).toBe('id-3');
    s = uiReducer(s, { type: 'picker-filter', filter: 'abcdef zebra' });
    expect(selectedOption(s.picker!)?.value).toBe('id-3');
    s = uiReducer(s, { type: 'picker-filter', filter: 'nothing like it' });
    expect(selectedOption(s.picker!)).toBeUndefined();
    expect(render(<Picker view={s.picker!} columns={60} />).lastFrame()).toContain('nothing matches "nothing like it"');
    expect(render(<Picker view={s.picker!} columns={60} />).lastFrame()).toContain('filter: nothing like it');
  });
});
