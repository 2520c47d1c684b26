/** Markdown between blocks: blank lines kept when streamed, and tables too wide for the width. */
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { ColumnsContext } from '../../src/repl/components/columns.js';
import { MarkdownView } from '../../src/repl/components/markdown-view.js';
import { classifyText } from '../../src/repl/markdown/markdown-lines.js';
import { tableColumns, tableRecords } from '../../src/repl/markdown/table-block.js';
import { initialUiState, uiReducer } from '../../src/repl/state/ui-reducer.js';
import type { UiAction, UiState } from '../../src/repl/state/ui-state.js';

afterEach(() => cleanup());

const kinds = (s: UiState) => s.items.map((i) => (i.kind === 'markdown' ? i.lines.map((l) => l.kind).join(',') : i.kind));
const TABLE = [
  '| Name | Description | Owner |',
  '|---|---|---|',
  '| alpha | a rather long description of the first thing | someone@example.com |',
  '| beta | short | other@example.com |',
];

describe('blank lines between streamed blocks', () => {
  it('a blank line before a table (or list) arrives with it, never as an item of its own', () => {
    const start: UiAction = { type: 'turn-start', mode: 'chat', status: 'Thinking…' };
    for (const [before, block] of [
      ['Text before.\n\n', `${TABLE.join('\n')}\n\nAfter.\n`],
      ['Text before.\n\n', '- one\n- two\n\nAfter.\n'],
    ]) {
      let s = [start, { type: 'text', text: before } as UiAction].reduce(uiReducer, initialUiState());
      for (const line of block.split(/(?<=\n)/)) s = uiReducer(s, { type: 'text', text: line });
      s = uiReducer(s, { type: 'turn-end' });
      // No item is a lone blank line (Ink's <Static> prints nothing for one).
      expect(kinds(s)).not.toContain('blank');
      expect(kinds(s).join('|')).toMatch(/^text\|blank,(table|item,item)[|,]blank,text$/);
    }
  });
});

describe('a table wider than the terminal', () => {
  const [table] = classifyText(TABLE.join('\n'));
  const view = (columns: number) =>
    render(
      <ColumnsContext.Provider value={columns}>
        <MarkdownView lines={[table]} lead />
      </ColumnsContext.Provider>,
    ).lastFrame()!;

  it('keeps aligned columns when they fit', () => {
    expect(table.kind).toBe('table');
    if (table.kind !== 'table') return;
    expect(tableColumns(table)).toBe(5 + 3 + 44 + 3 + 19);
    expect(view(100)).toContain('alpha │ a rather long description of the first thing │ someone@example.com');
  });

  it('shows one `header: value` block per row when they do not', () => {
    if (table.kind !== 'table') return;
    expect(tableRecords(table)[1]).toEqual([
      { name: 'Name', value: 'beta' },
      { name: 'Description', value: 'short' },
      { name: 'Owner', value: 'other@example.com' },
    ]);
    const frame = view(60);
    expect(frame).not.toContain('│');
    expect(frame).toContain('● Name: alpha\n  Description: a rather long description of the first thing\n  Owner: someone@example.com\n\n  Name: beta');
    for (const line of frame.split('\n')) expect(line.length).toBeLessThanOrEqual(60);
  });
});
