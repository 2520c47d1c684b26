import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../src/tools/diff.js';
import { createGlobMatcher } from '../../src/tools/glob-match.js';
import { toolSummary } from '../../src/tools/index.js';

const summary = (name: string, args: unknown) => toolSummary({ id: '1', name, args: typeof args === 'string' ? args : JSON.stringify(args) });

describe('unifiedDiff', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff('a\nb\n', 'a\nb\n')).toBe('');
  });

  it('aligns an insertion and a deletion in separate hunks', () => {
    const before = Array.from({ length: 30 }, (_, k) => `l${k + 1}`).join('\n');
    const after = before.replace('l3\n', 'l3\nNEW\n').replace('l25\n', '');
    expect(unifiedDiff(before, after, { path: 'f.txt' })).toBe(
      [
        '--- a/f.txt',
        '+++ b/f.txt',
        '@@ -1,6 +1,7 @@',
        ' l1',
        ' l2',
        ' l3',
        '+NEW',
        ' l4',
        ' l5',
        ' l6',
        '@@ -22,7 +23,6 @@',
        ' l22',
        ' l23',
        ' l24',
        '-l25',
        ' l26',
        ' l27',
        ' l28',
      ].join('\n'),
    );
  });

  it('shows a new file as all additions and caps long diffs', () => {
    expect(unifiedDiff('', 'a\nb\n', { path: 'n.txt' })).toBe('--- a/n.txt\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b');
    const big = unifiedDiff('', 'x\n'.repeat(1000), { maxLines: 10 });
    expect(big.split('\n')).toHaveLength(11);
    expect(big.split('\n').at(-1)).toBe('... 993 more diff lines not shown');
  });
});

describe('glob matching', () => {
  it('matches names at any depth without a slash and whole paths with one', () => {
    expect(createGlobMatcher('*.ts')('src/deep/a.ts')).toBe(true);
    expect(createGlobMatcher('src/*.ts')('src/deep/a.ts')).toBe(false);
    expect(createGlobMatcher('src/**/*.ts')('src/a.ts')).toBe(true);
    expect(createGlobMatcher('src/**/*.ts')('src/x/y/a.ts')).toBe(true);
    expect(createGlobMatcher('**/test/*.{js,mjs}')('a/test/b.mjs')).toBe(true);
    expect(createGlobMatcher('file?.[ch]')('file1.c')).toBe(true);
    expect(createGlobMatcher('[!a]*.md')('a.md')).toBe(false);
    expect(createGlobMatcher('./docs/**')('docs/x/y.md')).toBe(true);
  });
});

describe('toolSummary', () => {
  it('gives one line per known tool', () => {
    expect(summary('read_file', { path: 'src/a.ts', offset: 10, limit: 31 })).toBe('read_file src/a.ts:10-40');
    expect(summary('read_file', { path: 'src/a.ts' })).toBe('read_file src/a.ts');
    expect(summary('read_file', { path: 'src/a.ts', offset: 5 })).toBe('read_file src/a.ts:5-');
    expect(summary('write_file', { path: 'a.txt', content: 'x\ny\n' })).toBe('write_file a.txt (2 lines)');
    expect(summary('edit_file', { path: 'a.ts', old_string: 'a', new_string: 'b', replace_all: true })).toBe('edit_file a.ts (all occurrences)');
    expect(summary('glob', { pattern: '**/*.ts', path: 'src' })).toBe('glob **/*.ts in src');
    expect(summary('grep', { pattern: 'TODO', path: 'src', glob: '*.ts', case_insensitive: true })).toBe('grep TODO in src (*.ts) -i');
    expect(summary('bash', { command: 'npm test' })).toBe('bash npm test');
    expect(summary('list_dir', {})).toBe('list_dir .');
    expect(summary('web_fetch', { url: 'https://example.com/a', prompt: 'the API' })).toBe('web_fetch https://example.com/a');
  });

  it('keeps long and multi-line arguments to one short line', () => {
    expect(summary('bash', { command: 'set -e\nnpm ci\nnpm test' })).toBe('bash set -e …');
    const long = summary('bash', { command: `echo ${'x'.repeat(200)}` });
    expect(long).toHaveLength(80);
    expect(long.endsWith('…')).toBe(true);
  });

  it('never throws on bad or unknown arguments', () => {
    expect(summary('read_file', '{"path": ')).toBe('read_file {"path":');
    expect(summary('mystery', { a: 1, b: 'two' })).toBe('mystery a=1 b=two');
    expect(summary('read_file', { path: 42 })).toBe('read_file path=42');
  });
});
