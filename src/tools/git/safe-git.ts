import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync, statSync, readFileSync } from 'node:fs';
import { basename, relative, isAbsolute, resolve as pathResolve, delimiter, join, dirname } from 'node:path';
import { childEnv } from '../../security/child-env.js';
import { keenHome } from '../../config/paths.js';
import { bwrapArgs, findSandbox, planFor, seatbeltProfile, type SandboxAvailability, type SandboxSettings, userHome } from '../sandbox/index.js';
import { onPath, probe, probeArgs } from '../sandbox/detect.js';
import { CONFIG_TIMEOUT_MS, type ConfigListing, type ListingOptions, listConfig, listConfigSync } from './config-listing.js';
import { type ConfigEntry, type NeutraliseScope, neutralisingSettings, settingsEnv } from './neutralise.js';

/**
 * The one way Keen runs git on its own (the prompt's `git status`): no credential in its
 * environment (an allow-list, `childEnv`), every code-running setting of every config git reads
 * turned off (`neutralisingSettings` over the enumerated config, includes followed), and inside
 * the sandbox read-only with no network where one works, so a setting git adds later and this
 * list misses still runs confined.
 */

/** How to start one git: program, arguments, environment. */
export interface GitLaunch {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  sandboxed: boolean;
}

/** Why Keen runs no git here: the repository's config could not be listed in full. */
export interface GitRefusal {
  refused: string;
}

function refusal(problem: string): GitRefusal {
  return { refused: `the repository's git config could not be read in full (${problem}), so nothing in it could be turned off` };
}

/** No git outside what the repository can fill: a bare `git` would be looked up in the repository itself. */
const NO_GIT: GitRefusal = { refused: 'no git on a PATH folder the repository cannot fill' };

const READ_ONLY: SandboxSettings = { mode: 'read-only', network: false };

function isWithin(p: string, dir: string): boolean {
  const rel = relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The system's program folders, which a workspace may hold (Keen started in `/` or `/usr`) but not fill. */
const SYSTEM_BINS = new Set(['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin', '/usr/local/sbin']);

/** `p`'s real path: the links of the parts that exist followed, a missing tail kept as written. */
function realPathOf(p: string): string {
  const tail: string[] = [];
  for (let head = pathResolve(p); ; ) {
    try {
      return join(realpathSync.native(head), ...tail.reverse());
    } catch {
      const up = dirname(head);
      if (up === head) return pathResolve(p);
      tail.push(basename(head));
      head = up;
    }
  }
}

/** `dir` and each folder above it are root's and writable by no group or other user. */
function rootsOnly(dir: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    try {
      const st = statSync(d);
      if (st.uid !== 0 || (st.mode & 0o022) !== 0) return false;
    } catch {
      return false;
    }
    if (dirname(d) === d) return true;
  }
}

/**
 * `env.PATH` without the entries a repository can fill: relative ones (a child resolves them
 * against the repository, so `./node_modules/.bin/git` would be the repository's) and those whose
 * real path lies inside the workspace or its repository, each kept one as its real path — except a system program folder
 * (`/usr/bin`, …) that only root can write and no repository holds, so Keen started in `/` still
 * finds git and bubblewrap.
 */
export function trustedPath(cwd: string, env: NodeJS.ProcessEnv): string {
  const top = repositoryTop(cwd);
  const realTop = top === undefined ? undefined : realPathOf(top);
  const inside = realTop === undefined ? [realPathOf(cwd)] : [realPathOf(cwd), realTop];
  const systemBin = (real: string) => SYSTEM_BINS.has(real) && !(realTop && isWithin(real, realTop)) && rootsOnly(real);
  // Each kept entry as its real path: a link on the way cannot be re-pointed after it was judged.
  return (env.PATH ?? '')
    .split(delimiter)
    .filter((entry) => entry !== '' && isAbsolute(entry))
    .map(realPathOf)
    .filter((real) => !inside.some((d) => isWithin(real, d)) || systemBin(real))
    .join(delimiter);
}

/** The absolute path of git on the trusted PATH, or undefined (git missing). */
export function gitProgram(cwd: string, env: NodeJS.ProcessEnv): string | undefined {
  const trusted = { PATH: trustedPath(cwd, env) };
  return onPath('git', trusted) ?? (process.platform === 'win32' ? onPath('git.exe', trusted) : undefined);
}

/**
 * The config git would read in `cwd`, includes and `includeIf` followed (reading config runs no
 * program), or why it cannot be listed in full (`listConfig`). git missing: an empty listing.
 */
export function configListingSync(cwd: string, env: NodeJS.ProcessEnv, file?: string): ConfigListing {
  const git = gitProgram(cwd, env);
  return git ? listConfigSync(git, cwd, { ...env, PATH: trustedPath(cwd, env) }, listingOptions(cwd, file)) : { entries: [] };
}

/** The same, without blocking. */
export function configListing(cwd: string, env: NodeJS.ProcessEnv, file?: string): Promise<ConfigListing> {
  const git = gitProgram(cwd, env);
  return git ? listConfig(git, cwd, { ...env, PATH: trustedPath(cwd, env) }, listingOptions(cwd, file)) : Promise.resolve({ entries: [] });
}

/** What to list: `file` alone, or the repository's config with its own files looked at first. */
function listingOptions(cwd: string, file?: string): ListingOptions {
  if (file) return { file };
  const top = repositoryTop(cwd);
  return { local: repositoryConfigFiles(cwd), ...(top ? { top } : {}) };
}

/** The git dir of the repository git would find from `cwd`: its `.git`, or where a `.git` file points. */
function gitDirOf(cwd: string): string | undefined {
  const top = repositoryTop(cwd);
  if (!top) return undefined;
  const dotGit = join(top, '.git');
  try {
    if (!statSync(dotGit).isFile()) return dotGit;
    const target = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
    return target ? pathResolve(top, target) : undefined;
  } catch {
    return undefined;
  }
}

/** The repository's own config files (absent ones included): the git dir's, its common dir's. */
function repositoryConfigFiles(cwd: string): string[] {
  const gitDir = gitDirOf(cwd);
  if (!gitDir) return [];
  const out = [join(gitDir, 'config'), join(gitDir, 'config.worktree')];
  try {
    const common = pathResolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim());
    out.push(join(common, 'config'), join(common, 'config.worktree'));
  } catch {
    // no common dir
  }
  return out;
}

/** The entries of `configListingSync`, empty when the config cannot be listed in full. */
export function configEntriesSync(cwd: string, env: NodeJS.ProcessEnv, file?: string): ConfigEntry[] {
  const listing = configListingSync(cwd, env, file);
  return 'entries' in listing ? listing.entries : [];
}

/** The environment of a git Keen runs on its own, for `entries` (its config): no credential, every program off. */
export function safeGitEnv(entries: readonly ConfigEntry[], scope: NeutraliseScope = 'all', env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const base = childEnv(env);
  return { ...base, ...settingsEnv(neutralisingSettings(entries, scope)), GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' };
}

/** The folder holding the `.git` that git would find from `cwd` (walking up), if any. */
export function repositoryTop(cwd: string): string | undefined {
  for (let dir = pathResolve(cwd); ; ) {
    if (existsSync(join(dir, '.git'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The folders git must see besides `cwd`: the repository's top (it may be above `cwd`) and, for a
 * worktree or submodule whose `.git` is a file, the common folder it points into.
 */
export function repositoryFolders(cwd: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const out = [pathResolve(cwd)];
  for (const v of [env.GIT_DIR, env.GIT_WORK_TREE, env.GIT_COMMON_DIR]) if (v) out.push(pathResolve(cwd, v));
  const top = repositoryTop(cwd);
  if (top) {
    out.push(top);
    try {
      const dotGit = join(top, '.git');
      if (statSync(dotGit).isFile()) {
        const target = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
        // `<common>/.git/worktrees/<name>` or `<super>/.git/modules/<name>`: objects and config are there.
        if (target) out.push(pathResolve(top, target, '..', '..'));
      }
    } catch {
      // gone meanwhile: git decides
    }
  }
  return [...new Set(out)];
}

function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

function gitCommand(args: readonly string[]): string {
  return ['exec', 'git', ...args.map(shellQuote)].join(' ');
}

/** `git args` inside the sandbox `avail` offers (which works), read-only with no network. */
function confined(avail: SandboxAvailability, cwd: string, args: readonly string[], gitEnv: NodeJS.ProcessEnv, env: NodeJS.ProcessEnv): GitLaunch {
  const plan = planFor(READ_ONLY, repositoryFolders(cwd, env), cwd, { home: userHome(env), keenHome: keenHome(env) });
  // Found again inside, on the trusted PATH: a folder the sandbox hides may hold the git found outside.
  const command = gitCommand(args);
  // `--new-session`: no controlling terminal inside, so nothing there can push keys into it (TIOCSTI).
  const wrapped = avail.kind === 'seatbelt' ? ['-p', seatbeltProfile(plan), 'bash', '-c', command] : ['--new-session', ...bwrapArgs(plan, command)];
  return { file: avail.program!, args: wrapped, env: gitEnv, sandboxed: true };
}

/**
 * How to start `git args` in `cwd` safely (see the module comment). The sandbox is the one bash
 * uses, in read-only mode; where none works git runs unconfined, still neutralised and scrubbed.
 */
export async function safeGit(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<GitLaunch | GitRefusal> {
  const trusted = { ...env, PATH: trustedPath(cwd, env) };
  const git = gitProgram(cwd, env);
  if (!git) return NO_GIT;
  const avail = findSandbox(process.platform, trusted);
  // The config read and the sandbox probe (once per process) run at the same time.
  const [listing, problem] = await Promise.all([configListing(cwd, childEnv(trusted)), avail.program ? probe(avail) : Promise.resolve(avail.missing)]);
  if ('problem' in listing) return refusal(listing.problem);
  const gitEnv = safeGitEnv(listing.entries, 'all', trusted);
  if (!avail.program || problem) return { file: git, args: [...args], env: gitEnv, sandboxed: false };
  return confined(avail, cwd, args, gitEnv, trusted);
}

const syncProbes = new Map<string, boolean>();

/** Whether bubblewrap starts here, learned once per program without leaving the thread. */
function bwrapWorksSync(program: string, env: NodeJS.ProcessEnv): boolean {
  let works = syncProbes.get(program);
  if (works === undefined) {
    const r = spawnSync(program, probeArgs(), {
      stdio: 'ignore',
      env: childEnv(env),
      timeout: CONFIG_TIMEOUT_MS,
    });
    works = r.status === 0;
    syncProbes.set(program, works);
  }
  return works;
}

/** The same, synchronously (for a caller without a session). */
export function safeGitSync(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): GitLaunch | GitRefusal {
  const trusted = { ...env, PATH: trustedPath(cwd, env) };
  const git = gitProgram(cwd, env);
  if (!git) return NO_GIT;
  const listing = configListingSync(cwd, childEnv(trusted));
  if ('problem' in listing) return refusal(listing.problem);
  const gitEnv = safeGitEnv(listing.entries, 'all', trusted);
  const avail = findSandbox(process.platform, trusted);
  if (!avail.program || (avail.kind === 'bwrap' && !bwrapWorksSync(avail.program, trusted))) return { file: git, args: [...args], env: gitEnv, sandboxed: false };
  return confined(avail, cwd, args, gitEnv, trusted);
}
