import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GLOB_MAX_RESULTS } from '../../src/tools/glob.js';
import { cutNote, GREP_MAX_LINES } from '../../src/tools/grep.js';
import { call } from './helpers.js';
import { tempProject } from '../kit/temp-dir.js';

const tree = {
  '.gitignore': 'dist/\n*.log\nsecret.ts\n',
  'src/a.ts': 'export const needle = 1;\n',
  'src/sub/b.ts': 'const NEEDLE = 2;\n',
  'src/sub/c.tsx': 'needle in tsx\n',
  'src/secret.ts': 'needle but ignored\n',
  'dist/out.ts': 'needle in build output\n',
  'debug.log': 'needle in a log\n',
  'README.md': 'no match here\n',
  '.github/ci.ts': 'needle hidden but not ignored\n',
};

describe('glob', () => {
  it('finds files by name at any depth, respecting .gitignore (even for files the pattern names)', async () => {
    const dir = tempProject(tree);
    const msg = await call(dir, 'glob', { pattern: '*.ts' });
    expect(msg.content).toBe(['.github/ci.ts', 'src/a.ts', 'src/sub/b.ts'].join('\n'));
    expect((await call(dir, 'glob', { pattern: 'secret.ts' })).content).toBe('No files match secret.ts in the workspace.');
  });

  it('matches path patterns relative to the search directory', async () => {
    const dir = tempProject(tree);
    expect((await call(dir, 'glob', { pattern: 'src/**/*.{ts,tsx}' })).content).toBe(['src/a.ts', 'src/sub/b.ts', 'src/sub/c.tsx'].join('\n'));
    expect((await call(dir, 'glob', { pattern: 'sub/*', path: 'src' })).content).toBe(['src/sub/b.ts', 'src/sub/c.tsx'].join('\n'));
    expect((await call(dir, 'glob', { pattern: 'src/*.ts' })).content).toBe('src/a.ts');
  });

  it('caps the number of results and says how many were left out', async () => {
    const files: Record<string, string> = {};
    for (let k = 0; k < GLOB_MAX_RESULTS + 20; k++) files[`f/${String(k).padStart(4, '0')}.txt`] = '';
    const dir = tempProject(files);
    const lines = (await call(dir, 'glob', { pattern: '*.txt' })).content.split('\n');
    expect(lines).toHaveLength(GLOB_MAX_RESULTS + 1);
    expect(lines.at(-1)).toBe(`[Showing ${GLOB_MAX_RESULTS} of ${GLOB_MAX_RESULTS + 20} files; 20 more not shown. Narrow the pattern or path.]`);
  });

  it('reports a path that is not a directory', async () => {
    const dir = tempProject(tree);
    expect(await call(dir, 'glob', { pattern: '*', path: 'README.md' })).toMatchObject({
      is_error: true,
      content: 'README.md is not a directory.',
    });
  });
});

describe('grep', () => {
  it('finds matching lines as path:line:text, respecting .gitignore', async () => {
    const dir = tempProject(tree);
    const msg = await call(dir, 'grep', { pattern: 'needle' });
    expect(msg.is_error).toBeUndefined();
    expect(msg.content.split('\n').sort()).toEqual(
      ['.github/ci.ts:1:needle hidden but not ignored', 'src/a.ts:1:export const needle = 1;', 'src/sub/c.tsx:1:needle in tsx'].sort(),
    );
  });

  it('filters by glob without letting the glob re-include ignored files', async () => {
    const dir = tempProject(tree);
    expect((await call(dir, 'grep', { pattern: 'needle', glob: '*.ts' })).content.split('\n').sort()).toEqual([
      '.github/ci.ts:1:needle hidden but not ignored',
      'src/a.ts:1:export const needle = 1;',
    ]);
    expect((await call(dir, 'grep', { pattern: 'needle', glob: '*.log' })).content).toBe('No matches for needle in the workspace.');
    expect((await call(dir, 'grep', { pattern: 'needle', glob: 'sub/*', path: 'src' })).content).toBe('src/sub/c.tsx:1:needle in tsx');
  });

  it('searches case-insensitively, in one file, or lists only files', async () => {
    const dir = tempProject(tree);
    expect((await call(dir, 'grep', { pattern: 'needle', path: 'src/sub', case_insensitive: true })).content.split('\n').sort()).toEqual([
      'src/sub/b.ts:1:const NEEDLE = 2;',
      'src/sub/c.tsx:1:needle in tsx',
    ]);
    expect((await call(dir, 'grep', { pattern: 'const', path: 'src/a.ts' })).content).toBe('src/a.ts:1:export const needle = 1;');
    expect((await call(dir, 'grep', { pattern: 'needle', path: 'src', files_only: true })).content.split('\n').sort()).toEqual(['src/a.ts', 'src/sub/c.tsx']);
  });

  it('shows context lines as path-line-text', async () => {
    const dir = tempProject({ 'a.txt': 'before\nTARGET\nafter\nfar\n' });
    expect((await call(dir, 'grep', { pattern: 'TARGET', context: 1 })).content).toBe('a.txt-1-before\na.txt:2:TARGET\na.txt-3-after');
  });

  it('reports an invalid regex as one line', async () => {
    const dir = tempProject(tree);
    expect(await call(dir, 'grep', { pattern: '(unclosed' })).toMatchObject({
      is_error: true,
      content: 'grep failed: invalid regex: unclosed group',
    });
  });

  it('treats a pattern starting with a dash as a pattern', async () => {
    const dir = tempProject({ 'a.txt': 'x --flag y\n' });
    expect((await call(dir, 'grep', { pattern: '--flag' })).content).toBe('a.txt:1:x --flag y');
  });

  it('caps the output and says more lines matched than it shows', async () => {
    const dir = tempProject({ 'many.txt': 'hit\n'.repeat(GREP_MAX_LINES + 100) });
    const lines = (await call(dir, 'grep', { pattern: 'hit' })).content.split('\n');
    expect(lines).toHaveLength(GREP_MAX_LINES + 1);
    expect(lines.at(-1)).toBe(cutNote(GREP_MAX_LINES, 'lines'));
    expect(lines.at(-1)).toContain(`of more than ${GREP_MAX_LINES}`);
  });

  it('stops ripgrep at the cap: a search of endless matches still returns', async () => {
    const dir = tempProject();
    const fifo = path.join(dir, 'endless');
    execFileSync('mkfifo', [fifo]);
    // `yes` writes matching lines into the pipe for as long as anyone reads it.
    const writer = spawn('sh', ['-c', 'exec yes hit > endless'], { cwd: dir, stdio: 'ignore' });
    try {
      const lines = (await call(dir, 'grep', { pattern: 'hit', path: 'endless' })).content.split('\n');
      expect(lines).toHaveLength(GREP_MAX_LINES + 1);
      expect(lines[0]).toBe('endless:1:hit');
      expect(lines.at(-1)).toBe(cutNote(GREP_MAX_LINES, 'lines'));
    } finally {
      writer.kill('SIGKILL');
    }
  });

  it('shortens very long matching lines', async () => {
    const dir = tempProject({ 'min.js': `${'a'.repeat(5000)}hit${'b'.repeat(5000)}\n` });
    const msg = await call(dir, 'grep', { pattern: 'hit' });
    expect(msg.content.length).toBeLessThan(1000);
    expect(msg.content.startsWith('min.js:1:')).toBe(true);
  });
});

describe('list_dir', () => {
  it('lists directories first with a slash, hiding .git and .gitignored entries', async () => {
    const dir = tempProject({ ...tree, '.git/HEAD': 'ref\n', 'zeta.txt': '' });
    const msg = await call(dir, 'list_dir', {});
    expect(msg.content).toBe(['.github/', 'src/', '.gitignore', 'README.md', 'zeta.txt', '[3 entries hidden by .gitignore or .git]'].join('\n'));
  });

  it('applies parent .gitignore rules and negations inside a subdirectory', async () => {
    const dir = tempProject({
      '.gitignore': '*.gen.ts\n!keep.gen.ts\n/src/tmp\n',
      'src/a.ts': '',
      'src/x.gen.ts': '',
      'src/keep.gen.ts': '',
      'src/tmp/t': '',
    });
    expect((await call(dir, 'list_dir', { path: 'src' })).content).toBe(['a.ts', 'keep.gen.ts', '[2 entries hidden by .gitignore or .git]'].join('\n'));
  });

  it('says when a directory is empty and reports a missing one', async () => {
    const dir = tempProject({ 'empty/.gitignore': '*\n' });
    expect((await call(dir, 'list_dir', { path: 'empty' })).content).toBe('(empty has no visible entries)\n[1 entry hidden by .gitignore or .git]');
    expect(await call(dir, 'list_dir', { path: 'nope' })).toMatchObject({ is_error: true, content: 'File not found: nope.' });
  });
});
