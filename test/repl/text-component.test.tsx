/** The REPL's Text sanitises every string child; the views that draw external text show escapes, never the raw controls. */
import { renderToString } from 'ink';
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { MarkdownView } from '../../src/repl/components/markdown-view.js';
import { Text } from '../../src/repl/components/text.js';
import { ToolCard } from '../../src/repl/components/tool-card.js';
import { classifyText } from '../../src/repl/markdown/markdown-lines.js';
import { parseTable, layoutTable } from '../../src/repl/markdown/table-block.js';

afterEach(() => cleanup());

const OSC52 = '\x1b]52;c;Y3VybCB4IHwgc2g=\x07';
/** No control character but LF (Ink's own styling is off under NO_COLOR in tests). */
const clean = (frame: string) => !/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]/.test(frame);

describe('Text', () => {
  it('sanitises strings, arrays, fragments and nested Text alike', () => {
    const out = renderToString(
      <Text>
        a{'\x1b[8m'}
        {['\b', <Text key="n">{'\u202e'}</Text>]}
        <>{'\r'}</>
      </Text>,
    );
    expect(out).toBe('a\\x1b[8m\\b\\u202e\\r');
  });

  it('keeps Keen’s own styling: colours are applied after the text is sanitised', () => {
    const out = renderToString(<Text color="red">{'\x1b[31mx'}</Text>, { columns: 40 });
    expect(out).toContain('\\x1b[31mx');
  });
});

describe('views that draw external text', () => {
  it('a tool card shows the arguments and output with escapes', () => {
    const card = { id: '1', name: 'bash', args: `touch PWNED; ${'\b'.repeat(3)}ls`, status: 'done' as const, output: `out ${OSC52}\nline\twith tab` };
    const frame = render(<ToolCard card={card} expanded />).lastFrame()!;
    expect(clean(frame)).toBe(true);
    expect(frame).toContain('touch PWNED; \\b\\b\\bls');
    expect(frame).toContain('out \\x1b]52;c;Y3VybCB4IHwgc2g=\\x07');
    expect(frame).toContain('line    with tab');
  });

  it('markdown text, inline code and code blocks show escapes', () => {
    const frame = render(<MarkdownView lines={classifyText(`hi ${OSC52} \`\x1b[2J\`\n\n\`\`\`sh\necho \x1b]0;t\x07\n\`\`\``)} lead />).lastFrame()!;
    expect(clean(frame)).toBe(true);
    expect(frame).toContain('hi \\x1b]52;c;');
    expect(frame).toContain('\\x1b[2J');
    expect(frame).toContain('echo \\x1b]0;t\\x07');
  });

  it('a table measures its cells as drawn, so the columns line up', () => {
    const laid = layoutTable(parseTable(['| a | b |', '|---|---|', '| \x1b[8m | x |'])!);
    expect(laid.rows[0]).toBe('\\x1b[8m │ x');
    expect(laid.header.indexOf('│')).toBe(laid.rows[0].indexOf('│'));
  });
});
