import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, realpathSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { symlink } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { READ_DEFAULT_LIMIT, READ_MAX_CHARS, READ_MAX_LINE_CHARS, readFileTool } from '../../src/tools/read-file.js';
import { CANCELLED, ToolError } from '../../src/tools/registry.js';
import { call, yolo } from './helpers.js';
import { tempProject } from '../kit/temp-dir.js';

const numbered = (n: number, text: string) => `${String(n).padStart(6)}\t${text}`;

/** Resolves once this process has `file` open and has read past its start. */
async function readingUnderway(file: string): Promise<void> {
  const position = () =>
    readdirSync('/proc/self/fd').some((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === file && Number(/^pos:\s+(\d+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1]) > 0;
      } catch {
        return false;
      }
    });
  while (!position()) await new Promise((r) => setTimeout(r, 5));
}

describe('read_file', () => {
  it('returns numbered lines without a trailing phantom line, dropping CRs', async () => {
    const dir = tempProject({ 'a.txt': 'one\r\ntwo\nthree\n' });
    const msg = await call(dir, 'read_file', { path: 'a.txt' });
    expect(msg.is_error).toBeUndefined();
    expect(msg.content).toBe([numbered(1, 'one'), numbered(2, 'two'), numbered(3, 'three')].join('\n'));
  });

  it('reads a line range and says how to read the rest', async () => {
    const lines = Array.from({ length: 50 }, (_, k) => `line ${k + 1}`).join('\n');
    const dir = tempProject({ 'a.txt': lines });
    const msg = await call(dir, 'read_file', { path: 'a.txt', offset: 10, limit: 3 });
    expect(msg.content).toBe([numbered(10, 'line 10'), numbered(11, 'line 11'), numbered(12, 'line 12'), '[Showing lines 10-12 of 50. Read more with offset=13.]'].join('\n'));
  });

  it(`stops at ${READ_DEFAULT_LIMIT} lines by default`, async () => {
    const dir = tempProject({ 'big.txt': 'x\n'.repeat(READ_DEFAULT_LIMIT + 500) });
    const msg = await call(dir, 'read_file', { path: 'big.txt' });
    const shown = msg.content.split('\n');
    expect(shown).toHaveLength(READ_DEFAULT_LIMIT + 1);
    expect(shown.at(-1)).toBe(`[Showing lines 1-${READ_DEFAULT_LIMIT} of ${READ_DEFAULT_LIMIT + 500}. Read more with offset=${READ_DEFAULT_LIMIT + 1}.]`);
  });

  it('caps the output size and says exactly where it stopped', async () => {
    const line = 'y'.repeat(1000);
    const dir = tempProject({ 'wide.txt': `${line}\n`.repeat(200) });
    const msg = await call(dir, 'read_file', { path: 'wide.txt' });
    expect(msg.content.length).toBeLessThanOrEqual(READ_MAX_CHARS + 200);
    const last = msg.content.split('\n').at(-1)!;
    const m = /^\[Output cap of 50000 characters reached\. Showing lines 1-(\d+) of 200\. Read more with offset=(\d+)\.\]$/.exec(last);
    expect(m).not.toBeNull();
    expect(Number(m![2])).toBe(Number(m![1]) + 1);
    const next = await call(dir, 'read_file', { path: 'wide.txt', offset: Number(m![2]), limit: 1 });
    expect(next.content.startsWith(numbered(Number(m![2]), line))).toBe(true);
  });

  it('shortens very long lines and says so', async () => {
    const dir = tempProject({ 'min.js': 'z'.repeat(READ_MAX_LINE_CHARS + 10) });
    const msg = await call(dir, 'read_file', { path: 'min.js' });
    expect(msg.content).toContain('… [10 more characters]');
    expect(msg.content).toContain(`[1 line longer than ${READ_MAX_LINE_CHARS} characters was shortened.]`);
  });

  it('streams files too large to load whole, without counting all their lines', async () => {
    const line = `${'q'.repeat(99)}\n`;
    const dir = tempProject({ 'huge.log': line.repeat(340_000) }); // ~34 MB
    const msg = await call(dir, 'read_file', { path: 'huge.log', offset: 300_000, limit: 2 });
    expect(msg.content).toBe(
      [
        numbered(300_000, 'q'.repeat(99)),
        numbered(300_001, 'q'.repeat(99)),
        '[Showing lines 300000-300001; the file is 32 MB, total lines not counted. Read more with offset=300002.]',
      ].join('\n'),
    );
    const end = await call(dir, 'read_file', { path: 'huge.log', offset: 339_999 });
    expect(end.content).toBe([numbered(339_999, 'q'.repeat(99)), numbered(340_000, 'q'.repeat(99))].join('\n'));
  });

  it('refuses binary files', async () => {
    const dir = tempProject({ 'img.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]) });
    const msg = await call(dir, 'read_file', { path: 'img.png' });
    expect(msg).toMatchObject({ is_error: true, content: 'Refusing to read img.png: it is a binary file (contains NUL bytes).' });
  });

  it('reports a missing file, a directory and an offset past the end clearly', async () => {
    const dir = tempProject({ 'src/a.ts': 'a\nb\n' });
    expect(await call(dir, 'read_file', { path: 'nope.ts' })).toMatchObject({ is_error: true, content: 'File not found: nope.ts.' });
    expect(await call(dir, 'read_file', { path: 'src' })).toMatchObject({
      is_error: true,
      content: 'src is a directory; use list_dir to see what is inside.',
    });
    expect(await call(dir, 'read_file', { path: 'src/a.ts', offset: 9 })).toMatchObject({
      is_error: true,
      content: 'offset 9 is past the end of src/a.ts, which has 2 lines.',
    });
  });

  it('says when a file is empty', async () => {
    const dir = tempProject({ 'empty.txt': '' });
    expect((await call(dir, 'read_file', { path: 'empty.txt' })).content).toBe('(empty.txt is empty)');
  });

  it('refuses relative paths that leave the workspace but reads absolute paths anywhere', async () => {
    const outside = tempProject({ 'secret.txt': 'outside\n' });
    const dir = tempProject();
    const rel = path.relative(dir, path.join(outside, 'secret.txt'));
    const refused = await call(dir, 'read_file', { path: rel });
    expect(refused.is_error).toBe(true);
    expect(refused.content).toBe(`Refusing to read ${rel}: it is outside the workspace ${dir}. Pass an absolute path to read files elsewhere.`);
    const abs = await call(dir, 'read_file', { path: path.join(outside, 'secret.txt') });
    expect(abs.content).toBe(numbered(1, 'outside'));
  });

  it('follows symlinks inside the workspace', async () => {
    const dir = tempProject({ 'real.txt': 'linked\n' });
    await symlink(path.join(dir, 'real.txt'), path.join(dir, 'link.txt'));
    expect((await call(dir, 'read_file', { path: 'link.txt' })).content).toBe(numbered(1, 'linked'));
  });
});

describe('read_file cannot hang or blow up', () => {
  it('refuses devices, FIFOs and sockets at once', async () => {
    const dir = tempProject();
    execFileSync('mkfifo', [path.join(dir, 'pipe')]);
    const zero = await call(dir, 'read_file', { path: '/dev/zero' });
    expect(zero).toMatchObject({ is_error: true, content: 'Refusing to read /dev/zero: it is a device, not a regular file.' });
    const fifo = await call(dir, 'read_file', { path: 'pipe' });
    expect(fifo).toMatchObject({ is_error: true, content: 'Refusing to read pipe: it is a FIFO (named pipe), not a regular file.' });
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(path.join(dir, 'sock'), r));
    try {
      expect((await call(dir, 'read_file', { path: 'sock' })).content).toBe('Refusing to read sock: it is a socket, not a regular file.');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('reads a 100 MB single-line file with bounded memory, showing the start and the size of the rest', async () => {
    const dir = tempProject();
    const file = path.join(dir, 'one-line.min.js');
    const block = Buffer.alloc(1 << 20, 'a');
    const fd = openSync(file, 'w');
    for (let k = 0; k < 100; k++) writeSync(fd, block);
    closeSync(fd);
    const before = process.memoryUsage().rss;
    const msg = await call(dir, 'read_file', { path: 'one-line.min.js' });
    expect(process.memoryUsage().rss - before).toBeLessThan(150 * 1024 * 1024);
    expect(msg.content.startsWith(numbered(1, 'a'.repeat(READ_MAX_LINE_CHARS)))).toBe(true);
    expect(msg.content).toContain(`… [${100 * (1 << 20) - READ_MAX_LINE_CHARS} more bytes]`);
    expect(msg.content).toContain('[1 line longer than 2000 characters was shortened.]');
  });

  it('stops reading when cancelled, however much of the file is left', async () => {
    const dir = tempProject();
    const file = path.join(dir, 'huge.txt');
    // Text, then a sparse terabyte: read to its end, it would outlast the test timeout many times.
    writeFileSync(file, 'b\n'.repeat(1 << 20));
    truncateSync(file, 2 ** 40);
    const ac = new AbortController();
    const reading = readFileTool.run({ path: 'huge.txt', offset: 2_000_000 }, { cwd: dir, signal: ac.signal, permissions: yolo });
    await readingUnderway(realpathSync(file));
    ac.abort();
    await expect(reading).rejects.toThrow(new ToolError(CANCELLED));
  });
});
