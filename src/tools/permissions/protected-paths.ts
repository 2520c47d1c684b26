import { resolve } from 'node:path';
import { credentialStores } from '../credential-stores.js';
import { isInside, posixRel } from './request.js';

/**
 * Files that change what runs: git's config and hooks, Keen's and other agents' settings, editor
 * and CI configs that run code, direnv, pre-commit. A write to them could turn "may write files"
 * into "may run commands", so writes always ask (headless: denied), whatever the allow rules or
 * the mode say, unless a rule in the user's own config names the location explicitly. Matched at
 * any depth, case-insensitively; an entry of several segments (`.github/workflows`) matches
 * those segments in a row. The sandbox binds the ones at a workspace root read-only
 * (src/tools/sandbox/protected-mounts.ts).
 */
export const PROTECTED_DIRS = ['.git', '.keen', '.claude', '.agents', '.husky', '.vscode', '.idea', '.cursor', '.zed', '.devcontainer', '.github/workflows', '.github/actions'];
export const PROTECTED_FILES = ['.mcp.json', '.envrc', '.gemini/settings.json', '.pre-commit-config.yaml', '.yarnrc.yml', '.nvim.lua', '.nvimrc', '.exrc'];

const split = (entry: string) => entry.split('/');

/** Where the segments `entry` start in `parts`, or -1. */
function indexOfRun(parts: readonly string[], entry: readonly string[], last: boolean): number {
  for (let i = 0; i + entry.length <= parts.length; i++) {
    if (last && i + entry.length !== parts.length) continue;
    if (entry.every((seg, k) => parts[i + k] === seg)) return i;
  }
  return -1;
}

/**
 * The protected segment `abs` falls under (e.g. `.git`, or `.github` for `.github/workflows/x`),
 * or undefined: the first segment of the matched entry, which an explicit rule must name.
 * `roots` are the workspace roots; a path outside every root is not judged here (writes there
 * are refused anyway).
 */
export function protectedSegment(abs: string, roots: readonly string[]): string | undefined {
  for (const root of roots) {
    if (!isInside(root, abs) || abs === root) continue;
    const parts = posixRel(root, abs).toLowerCase().split('/');
    for (const dir of PROTECTED_DIRS) {
      const entry = split(dir);
      // A folder entry covers the folder itself and everything below it.
      if (indexOfRun(parts, entry, false) !== -1) return entry[0];
    }
    for (const file of PROTECTED_FILES) {
      const entry = split(file);
      if (indexOfRun(parts, entry, true) !== -1) return entry[0];
    }
  }
  return undefined;
}

/**
 * Credential stores (src/tools/credential-stores.ts): reads ask even inside the workspace, the
 * file tools refuse them without an explicit rule, the sandbox hides them.
 */
export function credentialPaths(home: string, env: NodeJS.ProcessEnv = process.env): string[] {
  return credentialStores(resolve(home), env).map((s) => s.path);
}
