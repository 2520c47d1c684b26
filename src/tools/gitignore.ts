import { readFile } from 'node:fs/promises';
import { dirname, join, basename, relative, sep } from 'node:path';
import type { Ignore } from 'ignore';

type IgnoreFactory = () => Ignore;
let ignoreModule: Promise<IgnoreFactory> | undefined;
/** The `ignore` library (CommonJS), loaded the first time a .gitignore is read: off the startup path. */
const loadIgnore = () => (ignoreModule ??= import('ignore').then((m) => (m as unknown as { default: IgnoreFactory }).default));
import { isInside } from './permissions/request.js';

/**
 * .gitignore rules for list_dir (glob and grep use ripgrep's own implementation), with the
 * `ignore` library's gitignore semantics: the .gitignore files from the workspace root down to the
 * listed directory, a deeper file's rules (re-includes too) winning over a shallower one's.
 * `.git/info/exclude` and global excludes are not read.
 */
export interface IgnoreRule {
  base: string;
  matcher: Ignore;
}

/** Rules from every .gitignore between `root` and `dir` (just `dir`'s own when outside `root`). */
export async function loadIgnoreRules(root: string, dir: string): Promise<IgnoreRule[]> {
  const dirs: string[] = [];
  if (isInside(root, dir)) {
    for (let d = dir; ; d = dirname(d)) {
      dirs.unshift(d);
      if (d === root || dirname(d) === d) break;
    }
  } else {
    dirs.push(dir);
  }
  const rules: IgnoreRule[] = [];
  for (const d of dirs) {
    const text = await readFile(join(d, '.gitignore'), 'utf8').catch(() => undefined);
    if (text !== undefined) rules.push({ base: d, matcher: (await loadIgnore())().add(text) });
  }
  return rules;
}

/** Whether `abs` is ignored by `rules`. `.git` is always ignored. */
export function isIgnored(rules: IgnoreRule[], abs: string, isDir: boolean): boolean {
  if (basename(abs) === '.git') return true;
  let ignored = false;
  for (const rule of rules) {
    if (!isInside(rule.base, abs) || abs === rule.base) continue;
    const rel = relative(rule.base, abs).split(sep).join('/') + (isDir ? '/' : '');
    const result = rule.matcher.test(rel);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}
