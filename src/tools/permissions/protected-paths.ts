import path from 'node:path';
import { isInside, posixRel } from './request.js';

/**
 * Files that change what runs: git's config and hooks, Keen's and other agents' settings, editor
 * tasks, direnv. A write to them could turn "may write files" into "may run commands", so writes
 * always ask (headless: denied), whatever the allow rules or the mode say, unless a rule in the
 * user's own config names the location explicitly. Matched at any depth, case-insensitively.
 */
export const PROTECTED_DIRS = ['.git', '.keen', '.claude', '.agents', '.husky', '.vscode', '.idea'];
export const PROTECTED_FILES = ['.mcp.json', '.envrc'];

/**
 * The protected segment `abs` falls under (e.g. `.git`), or undefined. `roots` are the workspace
 * roots; a path outside every root is not judged here (writes there are refused anyway).
 */
export function protectedSegment(abs: string, roots: readonly string[]): string | undefined {
  for (const root of roots) {
    if (!isInside(root, abs) || abs === root) continue;
    const parts = posixRel(root, abs).toLowerCase().split('/');
    const dir = parts.find((p) => PROTECTED_DIRS.includes(p));
    if (dir) return dir;
    const last = parts[parts.length - 1];
    if (PROTECTED_FILES.includes(last)) return last;
  }
  return undefined;
}

/** Credential folders below `home`: reads ask even inside the workspace; the sandbox hides them. */
export function credentialPaths(home: string): string[] {
  return ['.ssh', '.aws', '.gnupg', '.config/gcloud', '.azure', '.kube', '.docker', '.config/gh', '.netrc', '.git-credentials', '.npmrc', '.pypirc', '.codex'].map((p) =>
    path.join(home, p),
  );
}
