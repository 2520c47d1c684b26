import {
  lstatSync,
  realpathSync,
  accessSync,
  constants,
  statSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  mkdirSync,
  renameSync,
  symlinkSync,
  rmdirSync,
  unlinkSync,
  existsSync,
  mkdtempSync,
  writeFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep, dirname, basename } from 'node:path';
import { PROTECTED_DIRS, PROTECTED_FILES } from '../permissions/protected-paths.js';

/**
 * The protected paths of a writable workspace root, as the sandbox binds them read-only: the
 * repository's `.git/config`, `.git/hooks`, `.git/info` (attributes), `.git/config.worktree` and
 * those of its submodules (objects, refs, the index, HEAD and logs stay writable, so `git commit`
 * works), and every other entry of the protected list at the root. An entry that does not exist
 * is bound too: bubblewrap creates an empty mount point on the host for it (an empty folder or
 * file), which `removeMountPoints` takes away when the command has ended, so the command cannot
 * create it either. A folder that is not a git repository gets no `.git`.
 */
export interface ProtectedMount {
  path: string;
  dir: boolean;
  /** False: bubblewrap creates it as a mount point; `created` lists what to remove afterwards. */
  exists: boolean;
  /**
   * A folder between a root and a protected path (`.git` above `.git/config`, `.github` above
   * `.github/workflows`), bound writable onto itself: a mount point cannot be renamed, so the
   * command cannot move it aside and put a folder of its own in its place.
   */
  anchor?: boolean;
}

export interface ProtectedPlan {
  mounts: ProtectedMount[];
  /** Paths that did not exist before the command, deepest first (mount points and their parents). */
  created: string[];
  /**
   * Protected paths that are symlinks, with the text of each link. bubblewrap cannot mount over a
   * link (its target is bound instead), so the command could replace the link itself; after the
   * command `restoreLinks` puts each back.
   */
  links: ProtectedLink[];
  /**
   * Absent files that would point git elsewhere if a command created them (a git dir's
   * `commondir`). No empty mount point can stand in (git refuses an empty `commondir`), so after
   * the command `moveAsideAppeared` moves aside any that appeared, before Keen's next git.
   */
  mustStayAbsent: string[];
}

export interface ProtectedLink {
  path: string;
  target: string;
}

function kind(p: string): 'dir' | 'file' | 'link' | undefined {
  try {
    const st = lstatSync(p);
    return st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
}

function real(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

function writableDir(p: string): boolean {
  try {
    accessSync(p, constants.W_OK);
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The git dir of `root`: `.git` itself, or the folder a `.git` file's `gitdir:` line names. */
function gitDirOf(root: string): string | undefined {
  const dotGit = join(root, '.git');
  const k = kind(dotGit);
  if (k === 'dir' || k === 'link') return real(dotGit);
  if (k !== 'file') return undefined;
  const line = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
  return line ? real(resolve(root, line)) : undefined;
}

/** The folders holding a repository's config and hooks: the git dir, its common dir, submodules'. */
function gitConfigDirs(gitDir: string, depth = 0): string[] {
  const out = [gitDir];
  const common = kind(join(gitDir, 'commondir')) === 'file' ? real(resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim())) : undefined;
  if (common) out.push(common);
  if (depth < 3) {
    for (const base of [gitDir, common].filter((d): d is string => !!d)) {
      const modules = join(base, 'modules');
      if (kind(modules) !== 'dir') continue;
      for (const entry of readdirSync(modules, { withFileTypes: true })) {
        if (entry.isDirectory() && kind(join(modules, entry.name, 'HEAD')) === 'file') out.push(...gitConfigDirs(join(modules, entry.name), depth + 1));
      }
    }
  }
  return [...new Set(out)];
}

/**
 * In each git dir: `always` ones are bound read-only, absent ones too (a mount point); `config.worktree`
 * is read once `extensions.worktreeConfig` is set, so it may not be created either. `commondir` (a
 * linked worktree's pointer to its repository) is bound read-only where it exists, and must stay
 * absent where it does not.
 */
const GIT_PROTECTED: { name: string; dir: boolean; always: boolean }[] = [
  { name: 'config', dir: false, always: true },
  { name: 'hooks', dir: true, always: true },
  { name: 'info', dir: true, always: true },
  { name: 'config.worktree', dir: false, always: true },
  { name: 'commondir', dir: false, always: false },
];

/**
 * What to bind read-only in the writable `roots` (real paths). Paths outside every writable root
 * are read-only in the sandbox already and are left out.
 */
export function protectedMounts(roots: readonly string[]): ProtectedPlan {
  const mounts = new Map<string, ProtectedMount>();
  const created: string[] = [];
  const links: ProtectedLink[] = [];
  const mustStayAbsent: string[] = [];
  const inRoots = (p: string) => roots.some((r) => p === r || p.startsWith(r + sep));
  const add = (p: string, dir: boolean, optional = false) => {
    const k = kind(p);
    if (k === 'link') {
      links.push({ path: p, target: readlinkSync(p) });
      const target = real(p);
      // A link to somewhere outside the writable roots is read-only already.
      if (target && inRoots(target)) mounts.set(target, { path: target, dir: kind(target) === 'dir', exists: true });
      return;
    }
    if (k) return void mounts.set(p, { path: p, dir: k === 'dir', exists: true });
    if (optional) return;
    // Absent: the mount point and every missing parent are created by bubblewrap. Where the
    // nearest existing folder is not writable, the command cannot create it either.
    const missing: string[] = [];
    let q = p;
    for (; !kind(q) && inRoots(q); q = dirname(q)) missing.push(q);
    if (!writableDir(q)) return;
    created.push(...missing);
    // The missing folders above the mount point are made now, so they can be anchors.
    for (const m of missing.slice(1).reverse()) mkdirSync(m);
    mounts.set(p, { path: p, dir, exists: false });
  };
  const anchor = (p: string) => {
    const root = roots.find((r) => p.startsWith(r + sep));
    if (!root) return;
    for (let q = dirname(p); q !== root && q.startsWith(root + sep); q = dirname(q)) {
      if (kind(q) === 'dir' && !mounts.has(q)) mounts.set(q, { path: q, dir: true, exists: true, anchor: true });
    }
  };
  for (const root of roots) {
    const gitDir = gitDirOf(root);
    for (const d of gitDir ? gitConfigDirs(gitDir).filter(inRoots) : []) {
      for (const g of GIT_PROTECTED) add(join(d, g.name), g.dir, !g.always);
      if (!kind(join(d, 'commondir'))) mustStayAbsent.push(join(d, 'commondir'));
    }
    for (const d of PROTECTED_DIRS) if (d !== '.git') add(join(root, ...d.split('/')), true);
    for (const f of PROTECTED_FILES) add(join(root, ...f.split('/')), false);
    // A `.git` file names the repository: rewritten, it would point git at a config of the command's.
    if (kind(join(root, '.git')) === 'file') add(join(root, '.git'), false);
    // A `.git` link names the repository too: re-pointed, git would read the command's config.
    if (kind(join(root, '.git')) === 'link') links.push({ path: join(root, '.git'), target: readlinkSync(join(root, '.git')) });
  }
  for (const m of [...mounts.values()]) anchor(m.path);
  // Parents before children, so a child's bind lands inside its parent's.
  const sorted = [...mounts.values()].sort((a, b) => a.path.length - b.path.length);
  return { mounts: sorted, created: [...new Set(created)].sort((a, b) => b.length - a.length), links, mustStayAbsent: [...new Set(mustStayAbsent)] };
}

/**
 * Move aside each of `paths` (files that were absent before the command) that the command
 * created, as `<name>.replaced-<time>`, a name git does not read. Returns one line per file
 * moved. Never throws.
 */
export function moveAsideAppeared(paths: readonly string[], now = Date.now()): string[] {
  const lines: string[] = [];
  for (const p of paths) {
    if (!lstatSync(p, { throwIfNoEntry: false })) continue;
    const kept = `${p}.replaced-${now}`;
    try {
      renameSync(p, kept);
      lines.push(`${p} appeared during the command and was moved aside (now ${basename(kept)})`);
    } catch (err) {
      lines.push(`${p} appeared during the command and could not be moved aside: ${(err as Error).message}`);
    }
  }
  return lines;
}

/**
 * Put back every protected symlink the command replaced or re-pointed, once the command has ended
 * (nothing of it survives its PID namespace, so nothing races this). What the command left in a
 * link's place is kept, renamed `<name>.replaced-<time>`, a name no tool reads as configuration.
 * Returns one line per link put back. Never throws.
 */
export function restoreLinks(links: readonly ProtectedLink[], now = Date.now()): string[] {
  const lines: string[] = [];
  for (const link of links) {
    try {
      const st = lstatSync(link.path, { throwIfNoEntry: false });
      if (st?.isSymbolicLink() && readlinkSync(link.path) === link.target) continue;
      let kept = '';
      if (st) {
        kept = `${link.path}.replaced-${now}`;
        renameSync(link.path, kept);
      }
      symlinkSync(link.target, link.path);
      lines.push(`${link.path} is a protected path: the link to ${link.target} was put back${kept ? ` (what replaced it is now ${basename(kept)})` : ''}`);
    } catch (err) {
      lines.push(`${link.path} is a protected path and could not be put back: ${(err as Error).message}`);
    }
  }
  return lines;
}

/**
 * Remove the mount points bubblewrap made for absent protected paths, once the command has
 * ended: only empty folders and empty files, deepest first; anything else is left alone.
 */
export function removeMountPoints(created: readonly string[]): void {
  for (const p of created) {
    try {
      const st = lstatSync(p);
      if (st.isDirectory()) rmdirSync(p);
      else if (st.isFile() && st.size === 0) unlinkSync(p);
    } catch {
      // gone already, or not empty: leave it
    }
  }
}

let emptyFile: string | undefined;

/** A read-only empty file, the source bound over absent protected files. Made once per process. */
export function emptySource(): string {
  if (emptyFile && existsSync(emptyFile)) return emptyFile;
  const dir = mkdtempSync(join(tmpdir(), 'keen-sandbox-'));
  emptyFile = join(dir, 'empty');
  writeFileSync(emptyFile, '', { mode: 0o444 });
  const made = emptyFile;
  process.once('exit', () => rmSync(dirname(made), { recursive: true, force: true }));
  return emptyFile;
}
