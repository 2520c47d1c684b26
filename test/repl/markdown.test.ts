import { beforeAll, describe, expect, it } from 'vitest';
import { highlightLine, languageOf, loadHighlighter } from '../../src/repl/markdown/highlight.js';
import { parseInline } from '../../src/repl/markdown/inline.js';
import { classifyStreaming } from '../../src/repl/markdown/line-classifier.js';
import { classifyLines, classifyText, MAX_HELD_LIST_LINES, openBlockRows } from '../../src/repl/markdown/markdown-lines.js';
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
    const kinds = classifyText('# Title\n\n- one\n  1. two\n> quoted\n---\nplain').map((l) => l.kind);
    expect(kinds).toEqual(['heading', 'blank', 'item', 'item', 'quote', 'rule', 'text']);
  });

  it('reads an ordered item that does not start at 1 as a continuation line, as CommonMark does', () => {
    expect(classifyText('- one\n  2. two')).toEqual([{ kind: 'item', indent: 0, bullet: '•', spans: [{ text: 'one\n2. two', style: 'plain' }] }]);
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
    expect(table).toEqual({
      kind: 'table',
      header: ['Name', 'Size'],
      align: ['left', 'right'],
      rows: [
        ['a.ts', '12'],
        ['long-name.ts', '3'],
      ],
    });
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

describe('finished blocks from marked', () => {
  const items = (text: string) =>
    classifyText(text).map((l) => (l.kind === 'item' ? `${'  '.repeat(l.indent)}${l.bullet} ${l.spans.map((sp) => sp.text).join('')}` : `<${l.kind}>`));

  it('nests three levels of mixed ordered and unordered lists, numbering each from its start', () => {
    const text = ['1. Build', '   - compile', '     1. parse', '     1. emit', '   - bundle', '1. Test', '   * unit', '     - fast'].join('\n');
    expect(items(text)).toEqual(['1. Build', '  • compile', '    1. parse', '    2. emit', '  • bundle', '2. Test', '  • unit', '    • fast']);
  });

  it('keeps the start and the delimiter of an ordered list, and marks task items', () => {
    expect(items('3) third\n3) fourth\n\n- [ ] todo\n- [x] done')).toEqual(['3) third', '4) fourth', '<blank>', '☐ todo', '☑ done']);
  });

  it('shows a link inside a list item as its label with the url after it, with inline styles', () => {
    const [item] = classifyText('- see [the docs](https://x.dev/a) and **run** `npm test`');
    expect(item).toEqual({
      kind: 'item',
      indent: 0,
      bullet: '•',
      spans: [
        { text: 'see ', style: 'plain' },
        { text: 'the docs', style: 'link' },
        { text: ' (https://x.dev/a)', style: 'url' },
        { text: ' and ', style: 'plain' },
        { text: 'run', style: 'bold' },
        { text: ' ', style: 'plain' },
        { text: 'npm test', style: 'code' },
      ],
    });
  });

  it('renders headings, paragraphs and quotes from marked inline tokens; a bare url is shown once', () => {
    expect(classifyText('## A *b*\nsee https://x.dev & <tag>\n> quoted `c`')).toEqual([
      {
        kind: 'heading',
        level: 2,
        spans: [
          { text: 'A ', style: 'plain' },
          { text: 'b', style: 'italic' },
        ],
      },
      {
        kind: 'text',
        spans: [
          { text: 'see ', style: 'plain' },
          { text: 'https://x.dev', style: 'link' },
          { text: ' & <tag>', style: 'plain' },
        ],
      },
      {
        kind: 'quote',
        spans: [
          { text: 'quoted ', style: 'plain' },
          { text: 'c', style: 'code' },
        ],
      },
    ]);
  });

  it('keeps the nesting of a list committed in two parts (around a code fence)', () => {
    const first = classifyLines(['- a', '  ```', '  x', '  ```'], {});
    const second = classifyLines(['  - b', '    - c'], first.state);
    expect(second.lines).toMatchObject([
      { kind: 'item', indent: 1, bullet: '•' },
      { kind: 'item', indent: 2, bullet: '•' },
    ]);
  });

  it('the streaming path shows the list being written line by line, as written', () => {
    expect(classifyStreaming(['1. a', '1. b', '   - c'], {}).lines).toMatchObject([
      { kind: 'item', indent: 0, bullet: '1.' },
      { kind: 'item', indent: 0, bullet: '1.' },
      { kind: 'item', indent: 1, bullet: '•' },
    ]);
  });

  it('holds back a list that may still grow, blank lines included, and lets go once it ends', () => {
    expect(openBlockRows(['Intro', '- a', '  - b'], {})).toBe(2);
    expect(openBlockRows(['Intro', '- a', '', '- b'], {}, true)).toBe(3);
    expect(openBlockRows(['- a', '', 'After'], {})).toBe(0);
    expect(openBlockRows(['Intro', '  indented'], {})).toBe(0);
  });

  it('lets go of a list held longer than the limit, so the live part stays bounded', () => {
    const list = Array.from({ length: MAX_HELD_LIST_LINES }, (_, i) => `- item ${i}`);
    expect(openBlockRows(list, {})).toBe(MAX_HELD_LIST_LINES);
    expect(openBlockRows([...list, '- one more'], {})).toBe(0);
  });
});
