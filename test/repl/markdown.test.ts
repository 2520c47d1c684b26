import { beforeAll, describe, expect, it } from 'vitest';
import { highlightLine, languageOf, loadHighlighter } from '../../src/repl/markdown/highlight.js';
import { parseInline } from '../../src/repl/markdown/inline.js';
import { classifyLines, classifyText } from '../../src/repl/markdown/markdown-lines.js';
import { layoutTable, type TableLine } from '../../src/repl/markdown/table-block.js';
import stringWidth from 'string-width';

describe('inline markdown', () => {
  it('turns markers into styled spans and keeps the visible text', () => {
    expect(parseInline('run `npm test`, then **fix** the *first* failure')).toEqual([
      { text: 'run ', style: 'plain' },
      { text: 'npm test', style: 'code' },
      { text: ', then ', style: 'plain' },
      { text: 'fix', style: 'bold' },
      { text: ' the ', style: 'plain' },
      { text: 'first', style: 'italic' },
      { text: ' failure', style: 'plain' },
    ]);
  });

  it('leaves unclosed markers and snake_case identifiers literal', () => {
    expect(parseInline('half **open and snake_case_name here')).toEqual([{ text: 'half **open and snake_case_name here', style: 'plain' }]);
  });

  it('shows a link as its label with the url after it', () => {
    expect(parseInline('see [the docs](https://x.dev/a)')).toEqual([
      { text: 'see ', style: 'plain' },
      { text: 'the docs', style: 'link' },
      { text: ' (https://x.dev/a)', style: 'url' },
    ]);
  });
});

describe('markdown lines', () => {
  it('classifies headings, list items, quotes, rules and paragraphs', () => {
    const kinds = classifyText('# Title\n\n- one\n  2. two\n> quoted\n---\nplain').map((l) => l.kind);
    expect(kinds).toEqual(['heading', 'blank', 'item', 'item', 'quote', 'rule', 'text']);
  });

  it('carries an open code fence across separately committed lines', () => {
    const first = classifyLines(['```ts', 'const a = 1;'], {});
    expect(first.state.fence?.lang).toBe('ts');
    const second = classifyLines(['# not a heading', '```', '# a heading'], first.state);
    expect(second.lines.map((l) => l.kind)).toEqual(['code', 'fence', 'heading']);
    expect(second.state.fence).toBeUndefined();
  });

  it('numbers ordered items as written and marks task items', () => {
    const [a, b] = classifyText('3. third\n- [x] done');
    expect(a).toMatchObject({ kind: 'item', bullet: '3.' });
    expect(b).toMatchObject({ kind: 'item', bullet: '☑', spans: [{ text: 'done', style: 'plain' }] });
  });
});

describe('syntax highlighting', () => {
  beforeAll(() => loadHighlighter());

  it('marks keywords, strings, numbers and comments in TypeScript', () => {
    const { tokens } = highlightLine('const n = 42; // the answer', 'ts');
    expect(tokens).toEqual([
      { text: 'const', kind: 'keyword' },
      { text: ' n = ', kind: 'plain' },
      { text: '42', kind: 'number' },
      { text: '; ', kind: 'plain' },
      { text: '// the answer', kind: 'comment' },
    ]);
  });

  it('keeps a block comment and a Python triple-quoted string open across lines', () => {
    const a = highlightLine('x = 1 /* start', 'js');
    const b = highlightLine('still comment */ y', 'js', a.state);
    expect(b.tokens[0]).toEqual({ text: 'still comment */', kind: 'comment' });
    const c = highlightLine('doc = """first', 'python');
    expect(highlightLine('last""" + x', 'python', c.state).tokens[0]).toEqual({ text: 'last"""', kind: 'string' });
  });

  it('carries context only while something is open, so long blocks stay cheap', () => {
    expect(highlightLine('const a = 1;', 'ts').state.lines).toEqual([]);
    const open = highlightLine('/* still', 'ts');
    expect(open.state.lines).toEqual(['/* still']);
    const inside = highlightLine('going on', 'ts', open.state);
    expect(inside.tokens).toEqual([{ text: 'going on', kind: 'comment' }]);
    expect(highlightLine('done */ let b = 2;', 'ts', inside.state).state.lines).toEqual([]);
  });

  it('colours diff lines and leaves unknown languages plain', () => {
    expect(highlightLine('+added', 'diff').tokens).toEqual([{ text: '+added', kind: 'add' }]);
    expect(highlightLine('-gone', languageOf('patch')).tokens).toEqual([{ text: '-gone', kind: 'remove' }]);
    expect(highlightLine('whatever 1', 'no-such-language').tokens).toEqual([{ text: 'whatever 1', kind: 'plain' }]);
  });
});

describe('highlighting a streamed fence', () => {
  it('highlights Python and Rust through lowlight, with types from class names', async () => {
    await loadHighlighter();
    const py = highlightLine('def f(x): return "s" # note', 'python').tokens;
    expect(py.find((t) => t.text === 'def')).toMatchObject({ kind: 'keyword' });
    expect(py.find((t) => t.text === '"s"')).toMatchObject({ kind: 'string' });
    expect(py.find((t) => t.text === '# note')).toMatchObject({ kind: 'comment' });
    const rs = highlightLine('let v: Vec<u8> = Vec::new();', 'rust').tokens;
    expect(rs.find((t) => t.text === 'let')).toMatchObject({ kind: 'keyword' });
    expect(rs.map((t) => t.text).join('')).toBe('let v: Vec<u8> = Vec::new();');
  });
});

describe('finished tables (marked) with aligned columns (string-width)', () => {
  it('parses a table into cells, alignment and rows, markers removed', () => {
    const [table] = classifyText('| Name | Size |\n|:-----|-----:|\n| **a.ts** | 12 |\n| long-name.ts | 3 |');
    expect(table).toEqual({ kind: 'table', header: ['Name', 'Size'], align: ['left', 'right'], rows: [['a.ts', '12'], ['long-name.ts', '3']] });
    const laid = layoutTable(table as TableLine);
    expect(laid.header).toBe('Name         │ Size');
    expect(laid.rule).toBe('─────────────┼─────');
    expect(laid.rows).toEqual(['a.ts         │   12', 'long-name.ts │    3']);
  });

  it('aligns CJK and emoji cells by display width, not by string length', () => {
    const [table] = classifyText('| k | v |\n|---|---|\n| 名前 | 1 |\n| 🚀 | 2 |\n| ab | 3 |');
    const laid = layoutTable(table as TableLine);
    const bar = (row: string) => stringWidth(row.slice(0, row.indexOf('│')));
    expect(new Set([laid.header, ...laid.rows].map(bar))).toEqual(new Set([5]));
  });

  it('rows without a separator stay rows', () => {
    expect(classifyText('| just | pipes |').map((l) => l.kind)).toEqual(['table-row']);
  });
});
