import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from './fs-guard.js';
import { globToRegExp, isPathPattern } from './glob-match.js';

/**
 * .gitignore basics for list_dir (glob and grep use ripgrep's full implementation): the
 * .gitignore files from the workspace root down to the listed directory, with `#` comments,
 * `!` negation (last match wins), a trailing `/` for directories only, and patterns containing a
 * `/` anchored to their .gitignore's directory. `.git/info/exclude` and global excludes are not read.
 */
export interface IgnoreRule {
  base: string;
  re: RegExp;
  negate: boolean;
  dirOnly: boolean;
  anchored: boolean;
}

export function parseGitignore(text: string, base: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    let line = rawLine.replace(/(?<!\\)\s+$/, '');
    if (line === '' || line.startsWith('#')) continue;
    const negate = line.startsWith('!');
    if (negate) line = line.slice(1);
    const dirOnly = line.endsWith('/');
    line = line.replace(/\/+$/, '');
    const anchored = isPathPattern(line) || line.startsWith('/');
    line = line.replace(/^\//, '');
    if (line === '') continue;
    rules.push({ base, re: globToRegExp(line), negate, dirOnly, anchored });
  }
  return rules;
}

/** Rules from every .gitignore between `root` and `dir` (just `dir`'s own when outside `root`). */
export async function loadIgnoreRules(root: string, dir: string): Promise<IgnoreRule[]> {
  const dirs: string[] = [];
  if (isInside(root, dir)) {
    for (let d = dir; ; d = path.dirname(d)) {
      dirs.unshift(d);
      if (d === root || path.dirname(d) === d) break;
    }
  } else {
    dirs.push(dir);
  }
  const rules: IgnoreRule[] = [];
  for (const d of dirs) {
    const text = await readFile(path.join(d, '.gitignore'), 'utf8').catch(() => '');
    rules.push(...parseGitignore(text, d));
  }
  return rules;
}

/** Whether `abs` is ignored by `rules`. `.git` is always ignored. */
export function isIgnored(rules: IgnoreRule[], abs: string, isDir: boolean): boolean {
  if (path.basename(abs) === '.git') return true;
  let ignored = false;
  for (const rule of rules) {
    if (rule.dirOnly && !isDir) continue;
    if (!isInside(rule.base, abs) || abs === rule.base) continue;
    const rel = path.relative(rule.base, abs).split(path.sep).join('/');
    const subject = rule.anchored ? rel : rel.slice(rel.lastIndexOf('/') + 1);
    if (rule.re.test(subject)) ignored = !rule.negate;
  }
  return ignored;
}
