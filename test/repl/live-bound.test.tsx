/**
 * The live frame's bound (live-bound.ts): how many rows text takes, what of a too-tall live block
 * is shown, how much diff a permission prompt shows — and the views that use them, so a frame
 * never reaches the terminal's height (Ink would clear the scrollback).
 */
import { EventEmitter } from 'node:events';
import { Box, render as inkRender, Text, renderToString } from 'ink';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { BoundedFrame } from '../../src/repl/components/bounded-frame.js';
import { LiveTurnView } from '../../src/repl/components/live-turn.js';
import { PermissionPrompt, PROMPT_DIFF_CUT, PROMPT_DIFF_NOTE } from '../../src/repl/components/permission-prompt.js';
import { Picker, PICKER_ROWS } from '../../src/repl/components/picker.js';
import { INPUT_WINDOW_LINES, PromptInput } from '../../src/repl/components/prompt-input.js';
import { editorReducer, emptyEditor } from '../../src/repl/input/editor.js';
import { clipLiveLines, clipTail, frameRows, INPUT_FIXED_ROWS, PICKER_FIXED_ROWS, promptDetailLines, windowLines, wrapRows } from '../../src/repl/live-bound.js';
import { classifyStreaming } from '../../src/repl/markdown/line-classifier.js';
import type { LiveTurn, PermissionView } from '../../src/repl/state/ui-state.js';

afterEach(() => cleanup());

const rowsOf = (frame: string | undefined) => (frame ?? '').split('\n').length;
const list = (n: number) => Array.from({ length: n }, (_, i) => `- item ${i} of the list`).join('\n');
const live = (pending: string, lead = true): LiveTurn => ({ mode: 'chat', pending, md: {}, lead });

describe('frameRows and wrapRows', () => {
  it('leaves a margin under the terminal height (Ink clears at rows), at least one row', () => {
    expect(frameRows(24)).toBe(22);
    expect(frameRows(40)).toBe(38);
    // A frame as tall as a 3-row terminal would make Ink clear the scrollback on every frame.
    expect(frameRows(4)).toBe(2);
    expect(frameRows(3)).toBe(1);
    expect(frameRows(1)).toBe(1);
  });

  it('counts rows as Ink wraps them (words moved, long words broken, wide characters two columns)', () => {
    const texts = [
      '',
      'short',
      'the quick brown fox jumps over the lazy dog and keeps running past the river bank',
      'x'.repeat(45),
      `a ${'y'.repeat(30)} b`,
      '日本語のテキストを折り返す 日本語のテキスト',
      'line one\nline two is a little longer than the first',
    ];
    for (const width of [10, 17, 40]) {
      for (const text of texts) {
        const drawn = renderToString(
          <Box width={width}>
            <Text>{text || ' '}</Text>
          </Box>,
          { columns: 100 },
        );
        expect(wrapRows(text, width), `${JSON.stringify(text)} at ${width}`).toBe(rowsOf(drawn));
      }
    }
  });
});

describe('clipTail', () => {
  const one = () => 1;
  it('keeps everything that fits, with no marker', () => {
    expect(clipTail(['a', 'b', 'c'], one, 3)).toEqual({ shown: ['a', 'b', 'c'], hidden: 0 });
  });

  it('keeps the last lines that fit under a one-row marker', () => {
    expect(clipTail(['a', 'b', 'c', 'd', 'e'], one, 3)).toEqual({ shown: ['d', 'e'], hidden: 3 });
    expect(clipTail(['a', 'bb', 'c'], (l) => l.length, 3)).toEqual({ shown: ['c'], hidden: 2 });
  });

  it('cuts a last line taller than the room to the room', () => {
    expect(clipTail(['a', 'long'], (l) => (l === 'long' ? 9 : 1), 5)).toEqual({ shown: ['long'], hidden: 1, cutTo: 4 });
    expect(clipTail(['a', 'b'], one, 1)).toEqual({ shown: [], hidden: 2 });
  });

  it('clips a 50-item list to its last items at 80 columns', () => {
    const lines = classifyStreaming(list(50).split('\n'), {}).lines;
    const clip = clipLiveLines(lines, 80, 10);
    expect(clip.hidden).toBe(41);
    expect(clip.shown).toEqual(lines.slice(41));
  });
});

describe('LiveTurnView within its rows', () => {
  it('a list held live shows its tail under the marker, never more rows than given', () => {
    const { lastFrame } = render(<LiveTurnView live={live(`${list(50)}\n`)} columns={100} maxRows={10} />);
    const frame = lastFrame()!;
    expect(frame.split('\n')).toEqual(['… 41 lines above (in the scrollback once this block ends)', ...Array.from({ length: 9 }, (_, i) => `  • item ${41 + i} of the list`)]);
  });

  it('the same list drawn whole when it fits', () => {
    const { lastFrame } = render(<LiveTurnView live={live(`${list(5)}\n`)} columns={100} maxRows={10} />);
    expect(lastFrame()!.split('\n')).toEqual(['', '● • item 0 of the list', ...Array.from({ length: 4 }, (_, i) => `  • item ${i + 1} of the list`)]);
  });

  it('a paragraph still streaming that is taller than the rows shows its last rows', () => {
    const words = Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ');
    const { lastFrame } = render(<LiveTurnView live={live(words)} columns={100} maxRows={6} />);
    const frame = lastFrame()!.split('\n');
    expect(frame).toHaveLength(6);
    expect(frame[0]).toBe('… the start of this paragraph is above (in the scrollback once it ends)');
    expect(frame.at(-1)).toMatch(/w399$/);
    expect(frame.join('\n')).not.toContain('w0 ');
  });

  it('in a narrow terminal the marker stays one row (cut, not wrapped): the view never takes more rows than given', () => {
    const narrow = render(
      <Box width={40}>
        <LiveTurnView live={live(`${list(50)}\n`)} columns={40} maxRows={10} />
      </Box>,
    ).lastFrame()!;
    expect(rowsOf(narrow)).toBeLessThanOrEqual(10);
    expect(narrow.split('\n')[0]).toMatch(/^… 41 lines above/);
    const words = Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ');
    const paragraph = render(
      <Box width={40}>
        <LiveTurnView live={live(words)} columns={40} maxRows={6} />
      </Box>,
    ).lastFrame()!;
    expect(rowsOf(paragraph)).toBeLessThanOrEqual(6);
    expect(paragraph).toMatch(/w399$/);
  });

  it('a horizontal rule is one row in a terminal narrower than it', () => {
    const { lastFrame } = render(
      <Box width={30}>
        <LiveTurnView live={live('above\n\n---\n\nbelow\n')} columns={30} maxRows={20} />
      </Box>,
    );
    expect(
      lastFrame()!
        .split('\n')
        .filter((l) => l.includes('─')),
    ).toHaveLength(1);
  });

  it('shows nothing when no row is left', () => {
    const { lastFrame } = render(<LiveTurnView live={live(`${list(5)}\n`)} columns={100} maxRows={0} />);
    expect(lastFrame()).toBe('');
  });
});

describe('permission prompt: a long bash command, wide diff lines', () => {
  const command = Array.from({ length: 40 }, (_, i) => `echo "command line ${i}"`).join('\n');
  const bash = (fullDiffAbove?: boolean): PermissionView => ({
    request: { tool: 'bash', summary: 'run a 40-line script', detail: command, command } as unknown as PermissionView['request'],
    selected: 0,
    ...(fullDiffAbove ? { fullDiffAbove } : {}),
  });

  it('a 40-line command is cut so the question and all three answers stay on screen; option 2 names its first line', () => {
    const frame = render(
      <Box width={80}>
        <PermissionPrompt view={bash(true)} rows={24} columns={80} />
      </Box>,
    ).lastFrame()!;
    expect(rowsOf(frame)).toBeLessThanOrEqual(frameRows(24) - 2);
    for (const text of ['Allow bash?', 'echo "command line 0"', '1. Yes', '3. No, tell the agent', '(the whole command is printed above)', 'enter confirm'])
      expect(frame).toContain(text);
    expect(frame).not.toContain('command line 39');
    expect(frame).toMatch(/2\. Yes, and allow `echo "command line 0"…` for the rest of this session/);
  });

  it('diff lines wider than the box count as the rows they wrap to', () => {
    const wide = ['--- a/wide.txt', '+++ b/wide.txt', '@@ -0,0 +1,4 @@', ...Array.from({ length: 4 }, (_, i) => `+${'word '.repeat(80)}line ${i}`)].join('\n');
    const view: PermissionView = { request: { tool: 'write_file', summary: 'write wide.txt', detail: wide } as PermissionView['request'], selected: 0, fullDiffAbove: true };
    const frame = render(
      <Box width={80}>
        <PermissionPrompt view={view} rows={24} columns={80} />
      </Box>,
    ).lastFrame()!;
    expect(rowsOf(frame)).toBeLessThanOrEqual(frameRows(24) - 2);
    for (const text of ['Allow write_file?', 'write wide.txt', '1. Yes', '3. No, tell the agent', PROMPT_DIFF_NOTE.slice(0, -1)]) expect(frame).toContain(text);
  });
});

describe('permission prompt diff', () => {
  const diff = ['--- a/long.txt', '+++ b/long.txt', '@@ -0,0 +1,60 @@', ...Array.from({ length: 60 }, (_, i) => `+content line ${i}`)].join('\n');
  const view = (fullDiffAbove?: boolean): PermissionView => ({
    request: { tool: 'write_file', summary: 'write long.txt (60 lines)', detail: diff } as PermissionView['request'],
    selected: 0,
    ...(fullDiffAbove ? { fullDiffAbove } : {}),
  });

  it('its budget, in rows, leaves the question, the answers and the footer on screen; none in a terminal too short', () => {
    const lines = Array.from({ length: 60 }, (_, i) => `+content line ${i}`);
    const options = ['Yes', 'Yes, and allow it', 'No'];
    const n = promptDetailLines({ rows: 24, columns: 80, summary: 'write long.txt', options, lines, cap: 40 });
    // 22 rows: 12 around the prompt (2 spare), summary 1, answers 3, hint 1.
    expect(n).toBe(frameRows(24) - 12 - 5);
    expect(promptDetailLines({ rows: 100, columns: 80, summary: 's', options: ['Yes'], lines, cap: 40 })).toBe(40);
    expect(promptDetailLines({ rows: 10, columns: 80, summary: 's', options: ['Yes'], lines, cap: 40 })).toBe(0);
    // A line wider than the box takes the rows it wraps to: 420 characters at 80 columns are 6.
    const wide = Array.from({ length: 4 }, (_, i) => `+${'x'.repeat(60)} ${'y'.repeat(60)} `.repeat(3) + `line ${i}`);
    expect(promptDetailLines({ rows: 24, columns: 80, summary: 'write wide.txt', options, lines: wide, cap: 40 })).toBe(0);
    expect(promptDetailLines({ rows: 40, columns: 80, summary: 'write wide.txt', options, lines: wide, cap: 40 })).toBe(3);
  });

  it('in a 24-row terminal the prompt with a 63-line diff fits, and says where the rest is', () => {
    const { lastFrame } = render(<PermissionPrompt view={view(true)} rows={24} columns={100} />);
    const frame = lastFrame()!;
    expect(rowsOf(frame)).toBeLessThanOrEqual(frameRows(24) - 1);
    expect(frame).toContain('Allow write_file?');
    expect(frame).toContain('3. No, tell the agent');
    expect(frame).toContain('enter confirm');
    expect(frame).toMatch(new RegExp(`… \\+\\d+ lines \\${PROMPT_DIFF_NOTE.slice(0, -1)}\\)`));
    expect(render(<PermissionPrompt view={view()} rows={24} columns={100} />).lastFrame()).toContain(PROMPT_DIFF_CUT);
  });
});

function Tall({ n }: { n: number }) {
  return (
    <BoundedFrame>
      {Array.from({ length: n }, (_, i) => (
        <Text key={i}>{`row ${i}`}</Text>
      ))}
      <Text>the footer</Text>
    </BoundedFrame>
  );
}

function Rows({ n, onWiped }: { n: number; onWiped: () => void }) {
  return (
    <BoundedFrame onWiped={onWiped}>
      {Array.from({ length: n }, (_, i) => (
        <Text key={i}>{`row ${i}`}</Text>
      ))}
    </BoundedFrame>
  );
}

describe('scrolling windows in a short terminal', () => {
  it('the picker and the input show fewer lines, and say how many more there are', () => {
    expect(windowLines(40, PICKER_FIXED_ROWS, PICKER_ROWS)).toBe(PICKER_ROWS);
    expect(windowLines(14, PICKER_FIXED_ROWS, PICKER_ROWS)).toBe(4);
    expect(windowLines(6, INPUT_FIXED_ROWS, INPUT_WINDOW_LINES)).toBe(1);
    const options = Array.from({ length: 30 }, (_, i) => ({ value: `s${i}`, label: `session ${i}` }));
    const picker = render(<Picker view={{ kind: 'resume', title: 'Resume a session', options, selected: 0 }} maxRows={4} />).lastFrame()!;
    expect(picker).toContain('session 3');
    expect(picker).not.toContain('session 4 ');
    expect(picker).toContain('… 26 more below');
    // No '… more above' line at the top, and the footer is not the picker's.
    expect(rowsOf(picker)).toBe(4 + PICKER_FIXED_ROWS - 2);
    const editor = editorReducer(emptyEditor(), { type: 'insert', text: Array.from({ length: 30 }, (_, i) => `pasted ${i}`).join('\n') });
    const input = render(<PromptInput editor={editor} windowLines={3} />).lastFrame()!;
    expect(input).toContain('… 27 more lines above');
    expect(input).toContain('pasted 29');
    expect(rowsOf(input)).toBe(3 + 3);
  });
});

describe('BoundedFrame', () => {
  it('cuts content taller than the terminal from the top, keeping the last rows', () => {
    // ink-testing-library's stdout has no rows: the REPL assumes 24.
    const { lastFrame, rerender } = render(<Tall n={2} />);
    expect(lastFrame()).toBe('row 0\nrow 1\nthe footer');
    rerender(<Tall n={60} />);
    const frame = lastFrame()!.split('\n');
    expect(frame).toHaveLength(frameRows(24));
    expect(frame.at(-1)).toBe('the footer');
    expect(frame.at(-2)).toBe('row 59');
  });

  it('tells when a shorter terminal is at most as tall as the frame on screen (Ink then clears the scrollback once)', async () => {
    const stdout = Object.assign(new EventEmitter(), { columns: 60, rows: 30, isTTY: true, write: () => true });
    let wiped = 0;
    const onWiped = () => wiped++;
    const app = inkRender(<Rows n={1} onWiped={onWiped} />, { stdout: stdout as unknown as NodeJS.WriteStream, debug: true, patchConsole: false });
    app.rerender(<Rows n={10} onWiped={onWiped} />);
    stdout.rows = 12;
    stdout.emit('resize');
    expect(wiped).toBe(0);
    app.rerender(<Rows n={50} onWiped={onWiped} />);
    // The frame is bounded to frameRows(12) = 10 rows; the terminal shrinks to 10 rows.
    stdout.rows = 10;
    stdout.emit('resize');
    expect(wiped).toBe(1);
    stdout.rows = 40;
    stdout.emit('resize');
    expect(wiped).toBe(1);
    app.unmount();
  });
});
