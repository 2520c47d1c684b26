/**
 * Big directories: list_dir checks entries in the order shown and stops one past its cap, and the
 * lazy selection behind it (and behind Tab completion) yields exactly a full sort's order.
 */
import { describe, expect, it } from 'vitest';
import { LIST_MAX_ENTRIES } from '../../src/tools/list-dir.js';
import { selectSmallest, sortedLazily } from '../../src/tools/first-sorted.js';
import { complete } from '../../src/repl/input/completion.js';
import { call } from './helpers.js';
import { tempProject } from '../kit/temp-dir.js';

const collator = new Intl.Collator('en');

describe('list_dir of a big directory', () => {
  it('shows the first entries in order, directories first, and says it stopped', async () => {
    const files: Record<string, string> = { '.gitignore': 'f000*\n' };
    for (let k = 0; k < 1500; k++) files[`f${String(k).padStart(4, '0')}.txt`] = '';
    for (const d of ['zdir0', 'Zdir1', 'zdir2']) files[`${d}/x`] = '';
    const dir = tempProject(files);
    const lines = (await call(dir, 'list_dir', {})).content.split('\n');
    const visible = Object.keys(files)
      .filter((k) => !k.includes('/') && !k.startsWith('f000'))
      .sort(collator.compare);
    expect(lines.slice(0, LIST_MAX_ENTRIES)).toEqual(['zdir0/', 'Zdir1/', 'zdir2/', ...visible].slice(0, LIST_MAX_ENTRIES));
    expect(lines.slice(LIST_MAX_ENTRIES)).toEqual([
      `[Showing the first ${LIST_MAX_ENTRIES} entries; the directory holds 1504. Use glob to narrow down.]`,
      '[10 entries hidden by .gitignore or .git among those checked]',
    ]);
  });
});

describe('lazy sorted selection', () => {
  it('matches a full sort for any batch size', () => {
    const items = Array.from({ length: 3000 }, (_, k) => `n${(k * 7919) % 3000}-${k % 3 === 0 ? 'A' : 'a'}`);
    const sorted = [...items].sort(collator.compare);
    for (const batch of [1, 7, 100, 501, 5000]) expect([...sortedLazily(items, collator.compare, batch)]).toEqual(sorted);
    expect(selectSmallest(items, collator.compare, 50)).toEqual(sorted.slice(0, 50));
    expect(selectSmallest(items, collator.compare, 0)).toEqual([]);
  });
});

describe('Tab completion in a big directory', () => {
  it('offers the first 50 matches in order', async () => {
    const files: Record<string, string> = {};
    for (let k = 0; k < 6000; k++) files[`m${String(5999 - k).padStart(4, '0')}.md`] = '';
    const dir = tempProject(files);
    const first = complete('see @m', 6, dir);
    expect(first.candidates).toEqual(Array.from({ length: 50 }, (_, k) => `@m${String(k).padStart(4, '0')}.md`));
    expect(complete('see @m', 6, dir)).toEqual(first);
  });
});
