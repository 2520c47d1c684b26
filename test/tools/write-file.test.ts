import { mkdir, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call } from './helpers.js';
import { tempProject } from '../kit/temp-dir.js';

describe('write_file', () => {
  it('creates parent directories and says how many lines it wrote', async () => {
    const dir = tempProject();
    const msg = await call(dir, 'write_file', { path: 'src/deep/new.ts', content: 'a\nb\nc\n' });
    expect(msg).toMatchObject({ content: 'Wrote 3 lines to src/deep/new.ts (new file).' });
    expect(msg.is_error).toBeUndefined();
    expect(await readFile(path.join(dir, 'src/deep/new.ts'), 'utf8')).toBe('a\nb\nc\n');
  });

  it('overwrites an existing file and says so', async () => {
    const dir = tempProject({ 'a.txt': 'old\n' });
    const msg = await call(dir, 'write_file', { path: 'a.txt', content: 'new' });
    expect(msg.content).toBe('Wrote 1 line to a.txt (replaced the previous content).');
    expect(await readFile(path.join(dir, 'a.txt'), 'utf8')).toBe('new');
  });

  it('refuses writes outside the workspace, by relative or absolute path', async () => {
    const outside = tempProject();
    const dir = tempProject();
    const target = path.join(outside, 'x.txt');
    for (const p of [target, path.relative(dir, target)]) {
      const msg = await call(dir, 'write_file', { path: p, content: 'x' });
      expect(msg.is_error).toBe(true);
      expect(msg.content).toBe(`Refusing to write ${p}: ${target} is outside the workspace ${dir}. Only files inside the workspace can be changed.`);
    }
    await expect(readFile(target)).rejects.toThrow();
  });

  it('refuses writes through a symlinked directory that points outside', async () => {
    const outside = tempProject();
    const dir = tempProject();
    await symlink(outside, path.join(dir, 'escape'));
    const msg = await call(dir, 'write_file', { path: 'escape/sub/x.txt', content: 'x' });
    expect(msg.is_error).toBe(true);
    expect(msg.content).toBe(
      `Refusing to write escape/sub/x.txt: it leads through a symlink to ${path.join(outside, 'sub/x.txt')}, outside the workspace ${dir}. Only files inside the workspace can be changed.`,
    );
    await expect(readFile(path.join(outside, 'sub/x.txt'))).rejects.toThrow();
  });

  it('refuses writes through a (dangling) file symlink that points outside', async () => {
    const outside = tempProject();
    const dir = tempProject();
    await symlink(path.join(outside, 'later.txt'), path.join(dir, 'link.txt'));
    const msg = await call(dir, 'write_file', { path: 'link.txt', content: 'x' });
    expect(msg.is_error).toBe(true);
    expect(msg.content).toContain('it leads through a symlink to');
    await expect(readFile(path.join(outside, 'later.txt'))).rejects.toThrow();
  });

  it('allows symlinks that stay inside the workspace', async () => {
    const dir = tempProject();
    await mkdir(path.join(dir, 'real'));
    await symlink(path.join(dir, 'real'), path.join(dir, 'alias'));
    const msg = await call(dir, 'write_file', { path: 'alias/f.txt', content: 'ok\n' });
    expect(msg.is_error).toBeUndefined();
    expect(await readFile(path.join(dir, 'real/f.txt'), 'utf8')).toBe('ok\n');
  });

  it('reports writing over a directory as one clear line', async () => {
    const dir = tempProject({ 'src/a.ts': '' });
    expect(await call(dir, 'write_file', { path: 'src', content: 'x' })).toMatchObject({
      is_error: true,
      content: 'src is a directory; use list_dir to see what is inside.',
    });
  });
});
