/** isInside's prefix fast path answers as path.relative does, and leaves odd paths to it. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isInside } from '../../src/tools/permissions/request.js';

function slow(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

describe('isInside', () => {
  it('agrees with path.relative on plain and odd paths alike', () => {
    const paths = ['/', '/a', '/a/', '/a/b', '/a/b/', '/ab', '/a/b/c', '/a/.git', '/a/..b', '/a/../etc', '/a/./b', '/a//b', '/b', '/a/b/..', '/a/.'];
    for (const root of paths) for (const p of paths) expect(isInside(root, p), `${root} ⊇ ${p}`).toBe(slow(root, p));
  });
});
