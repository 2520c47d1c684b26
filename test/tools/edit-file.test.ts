import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PermissionRequest } from '../../src/tools/types.js';
import { call } from './helpers.js';
import { tempProject } from '../kit/temp-dir.js';

describe('edit_file', () => {
  it('replaces a unique string and says where', async () => {
    const dir = tempProject({ 'a.ts': 'const a = 1;\nconst b = 2;\n' });
    const msg = await call(dir, 'edit_file', { path: 'a.ts', old_string: 'b = 2', new_string: 'b = 3' });
    expect(msg).toMatchObject({ content: 'Edited a.ts: replaced 1 occurrence (first at line 2).' });
    expect(await readFile(path.join(dir, 'a.ts'), 'utf8')).toBe('const a = 1;\nconst b = 3;\n');
  });

  it('reports old_string not found without touching the file', async () => {
    const dir = tempProject({ 'a.ts': 'hello\n' });
    const msg = await call(dir, 'edit_file', { path: 'a.ts', old_string: 'Hello', new_string: 'bye' });
    expect(msg).toMatchObject({
      is_error: true,
      content: 'old_string was not found in a.ts. Read the file again and copy the text exactly, including whitespace and indentation.',
    });
    expect(await readFile(path.join(dir, 'a.ts'), 'utf8')).toBe('hello\n');
  });

  it('refuses an ambiguous match unless replace_all is set', async () => {
    const dir = tempProject({ 'a.ts': 'x = 1\nx = 1\nx = 1\n' });
    const msg = await call(dir, 'edit_file', { path: 'a.ts', old_string: 'x = 1', new_string: 'x = 2' });
    expect(msg).toMatchObject({
      is_error: true,
      content: 'old_string matches 3 places in a.ts; add surrounding lines to make it unique, or set replace_all to true.',
    });
    const all = await call(dir, 'edit_file', { path: 'a.ts', old_string: 'x = 1', new_string: 'x = 2', replace_all: true });
    expect(all.content).toBe('Edited a.ts: replaced 3 occurrences (first at line 1).');
    expect(await readFile(path.join(dir, 'a.ts'), 'utf8')).toBe('x = 2\nx = 2\nx = 2\n');
  });

  it('keeps $ patterns in new_string literal', async () => {
    const dir = tempProject({ 'a.sh': 'echo NAME\n' });
    await call(dir, 'edit_file', { path: 'a.sh', old_string: 'NAME', new_string: "$& $1 $$ $'" });
    expect(await readFile(path.join(dir, 'a.sh'), 'utf8')).toBe("echo $& $1 $$ $'\n");
  });

  it('matches multi-line text in a CRLF file and keeps its line endings', async () => {
    const dir = tempProject({ 'w.txt': 'one\r\ntwo\r\nthree\r\n' });
    const msg = await call(dir, 'edit_file', { path: 'w.txt', old_string: 'one\ntwo', new_string: 'uno\ndos' });
    expect(msg.is_error).toBeUndefined();
    expect(await readFile(path.join(dir, 'w.txt'), 'utf8')).toBe('uno\r\ndos\r\nthree\r\n');
  });

  it('explains a missing file, an empty old_string and a no-op edit', async () => {
    const dir = tempProject({ 'a.ts': 'x\n' });
    expect((await call(dir, 'edit_file', { path: 'b.ts', old_string: 'x', new_string: 'y' })).content).toBe('File not found: b.ts. Use write_file to create a new file.');
    expect((await call(dir, 'edit_file', { path: 'a.ts', old_string: '', new_string: 'y' })).content).toBe(
      'old_string must not be empty; use write_file to create or overwrite a file.',
    );
    expect((await call(dir, 'edit_file', { path: 'a.ts', old_string: 'x', new_string: 'x' })).content).toBe('old_string and new_string are identical; there is nothing to change.');
  });

  it('refuses to edit outside the workspace', async () => {
    const outside = tempProject({ 'o.txt': 'x\n' });
    const dir = tempProject();
    const msg = await call(dir, 'edit_file', { path: path.join(outside, 'o.txt'), old_string: 'x', new_string: 'y' });
    expect(msg.is_error).toBe(true);
    expect(msg.content).toContain('is outside the workspace');
    expect(await readFile(path.join(outside, 'o.txt'), 'utf8')).toBe('x\n');
  });

  it('refuses binary files', async () => {
    const dir = tempProject({ 'b.bin': Buffer.from('ab\0cd') });
    expect((await call(dir, 'edit_file', { path: 'b.bin', old_string: 'ab', new_string: 'x' })).content).toBe('Refusing to edit b.bin: it is a binary file (contains NUL bytes).');
  });

  it('shows the permission gate a unified diff of the edit', async () => {
    const lines = Array.from({ length: 20 }, (_, k) => `line ${k + 1}`);
    const dir = tempProject({ 'a.txt': `${lines.join('\n')}\n` });
    const asked: PermissionRequest[] = [];
    const gate = { check: async (r: PermissionRequest) => (asked.push(r), 'allow' as const) };
    await call(dir, 'edit_file', { path: 'a.txt', old_string: 'line 10\n', new_string: 'ten\n' }, { permissions: gate });
    expect(asked[0].summary).toBe('edit a.txt (1 replacement, from line 10)');
    expect(asked[0].detail).toBe(
      ['--- a/a.txt', '+++ b/a.txt', '@@ -7,7 +7,7 @@', ' line 7', ' line 8', ' line 9', '-line 10', '+ten', ' line 11', ' line 12', ' line 13'].join('\n'),
    );
  });
});
