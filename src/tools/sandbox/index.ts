import { realpathSync, statSync, existsSync } from 'node:fs';
import { tmpdir, homedir } from 'node:os';
import { sep, basename, resolve } from 'node:path';
import { credentialStores } from '../credential-stores.js';
import { bwrapArgs } from './bwrap.js';
import { findSandbox, probe, type SandboxAvailability } from './detect.js';
import { exposedHostPaths, hostSocketPaths, withoutHostSockets } from './host-sockets.js';
import { emptySource, moveAsideAppeared, protectedMounts, removeMountPoints, restoreLinks } from './protected-mounts.js';
import { seatbeltProfile } from './seatbelt.js';
import type { SandboxPlan, SandboxSettings } from './settings.js';

export { DEFAULT_SANDBOX, type SandboxMode, type SandboxPlan, type SandboxSettings } from './settings.js';
export { findSandbox, type SandboxAvailability } from './detect.js';
export { bwrapArgs } from './bwrap.js';
export { seatbeltProfile } from './seatbelt.js';
export type { HostSocketKind } from './host-sockets.js';

/** How to start one command: the program, its arguments, and whether a sandbox confines it. */
export interface Launch {
  file: string;
  args: string[];
  sandboxed: boolean;
  /** Set once per process when a sandbox was wanted but none could be used: a line for the result, */
  notice?: string;
  /** and one for the user (stderr, the REPL's notices). */
  warning?: string;
  /** Why the command may not run at all (plan mode without a sandbox). */
  refused?: string;
  /** A workspace root commands may not write because it holds the home folder. */
  homeRoot?: string;
  /**
   * Run when the command has ended: removes the mount points made for absent protected paths and
   * puts back protected symlinks the command replaced; returns a line for each link put back.
   */
  cleanup?: () => string[];
}

function real(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

const under = (root: string, p: string) => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);

/**
 * The paths a command must not see that exist: KEEN_HOME, the credential stores, and the host
 * sockets the environment names. Real paths; a store inside the workspace is hidden too.
 */
export function hiddenPaths(
  home: string,
  keenHome: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  settings?: Pick<SandboxSettings, 'hostSockets'>,
): { path: string; dir: boolean }[] {
  const allowed = settings?.hostSockets ?? [];
  const stores = credentialStores(home, env, keenHome).filter(
    (s) => !(allowed.includes('x11') && basename(s.path) === '.Xauthority') && !(allowed.includes('x11') && s.path === env.XAUTHORITY),
  );
  const out = new Map<string, { path: string; dir: boolean }>();
  for (const p of [...(keenHome ? [{ path: keenHome, dir: true }] : []), ...stores, ...hostSocketPaths(env, allowed).map((p) => ({ path: p, dir: false }))]) {
    const r = real(p.path);
    if (!r || out.has(r)) continue;
    out.set(r, { path: r, dir: statSync(r).isDirectory() });
  }
  return [...out.values()];
}

/** The private folders of a Linux sandbox: /tmp, /var/tmp, /run (and /var/run when it is not a link to /run). */
function privateDirs(): string[] {
  const dirs = ['/tmp', '/var/tmp', '/run'];
  const varRun = real('/var/run');
  if (varRun && varRun !== '/run') dirs.push(varRun);
  return dirs.filter((d) => existsSync(d));
}

/**
 * The workspace roots commands may write, and those they may only read: a root that holds the
 * home folder (Keen run in `/`, `/home` or `~`) would make every dotfile writable (`~/.bashrc`
 * runs outside the sandbox next time), so it is read-only.
 */
function splitRoots(roots: readonly string[], home: string): { writable: string[]; readOnlyRoots: string[] } {
  const h = real(home) ?? resolve(home);
  const holdsHome = (r: string) => under(r, h);
  return { writable: roots.filter((r) => !holdsHome(r)), readOnlyRoots: roots.filter(holdsHome) };
}

/** The sandbox plan for one command. */
export function planFor(
  settings: SandboxSettings,
  roots: readonly string[],
  cwd: string,
  opts: { home: string; keenHome?: string; env?: NodeJS.ProcessEnv; resolvConf?: string },
): SandboxPlan {
  const env = opts.env ?? process.env;
  const tmp = real(tmpdir()) ?? tmpdir();
  const readOnly = settings.mode === 'read-only';
  const all = [...new Set(roots.map((r) => real(r) ?? r))];
  const { writable, readOnlyRoots } = splitRoots(all, opts.home);
  const priv = privateDirs();
  const exposed = exposedHostPaths(env, settings.hostSockets, opts.resolvConf).filter((p) => existsSync(p));
  const visible = (p: string) => !priv.some((d) => under(d, p)) || all.some((w) => under(w, p)) || exposed.some((e) => under(e, p));
  // A store holding the workspace itself cannot be hidden without hiding the workspace.
  const hidden = hiddenPaths(opts.home, opts.keenHome, env, settings).filter((h) => visible(h.path) && !all.some((w) => under(h.path, w)));
  const prot = readOnly ? undefined : protectedMounts(writable);
  return {
    cwd: real(cwd) ?? cwd,
    writable,
    ...(readOnlyRoots.length > 0 ? { readOnlyRoots } : {}),
    hidden,
    network: settings.network,
    tmp,
    readOnly,
    privateDirs: priv,
    exposed,
    protected: prot?.mounts,
    emptyFile: prot?.mounts.some((m) => !m.exists && !m.dir) ? emptySource() : undefined,
    created: prot?.created,
    links: prot?.links,
    mustStayAbsent: prot?.mustStayAbsent,
  };
}

/** The environment of a sandboxed command: no variables naming host sockets (unless allowed), TMPDIR the private /tmp. */
export function sandboxEnv(env: NodeJS.ProcessEnv, settings: SandboxSettings): NodeJS.ProcessEnv {
  return { ...withoutHostSockets(env, settings.hostSockets), TMPDIR: '/tmp' };
}

/** What plan mode runs bash with: read-only, no network, no host socket, whatever the config says. */
export function planModeSettings(configured: SandboxSettings): SandboxSettings {
  return { ...configured, mode: 'read-only', network: false, hostSockets: [] };
}

let noticeGiven = false;

/**
 * How to run `command`: inside bubblewrap (Linux) or sandbox-exec (macOS) when the mode asks for a
 * sandbox and one works here, else plain `bash -c`. Where none works, the first launch carries a
 * one-time notice and commands run as with `sandbox.mode: "off"`. With `planMode` the command
 * runs in a read-only sandbox without network whatever the settings say, and where there is no
 * sandbox it is refused (`refused`).
 */
export async function launchFor(
  command: string,
  configured: SandboxSettings,
  roots: readonly string[],
  cwd: string,
  opts: { home: string; keenHome?: string; env: NodeJS.ProcessEnv; platform?: NodeJS.Platform; planMode?: boolean },
): Promise<Launch> {
  const settings = opts.planMode ? planModeSettings(configured) : configured;
  const plain: Launch = { file: 'bash', args: ['-c', command], sandboxed: false };
  if (settings.mode === 'off') return plain;
  const avail: SandboxAvailability = findSandbox(opts.platform ?? process.platform, opts.env);
  const problem = avail.kind ? await probe(avail) : avail.missing;
  if (problem || !avail.program) {
    if (opts.planMode)
      return { ...plain, refused: `Plan mode runs bash only in a read-only sandbox, and there is none here (${problem}); read files with read_file, grep and glob instead.` };
    if (noticeGiven) return plain;
    noticeGiven = true;
    return {
      ...plain,
      notice: `[no sandbox: ${problem}; commands run without one (as with sandbox.mode "off"). See docs/permissions.md.]`,
      warning: `no sandbox for bash: ${problem}; commands run without one (see docs/permissions.md)`,
    };
  }
  const plan = planFor(settings, roots, cwd, opts);
  const created = plan.created ?? [];
  const links = plan.links ?? [];
  const absent = plan.mustStayAbsent ?? [];
  const cleanup =
    created.length > 0 || links.length > 0 || absent.length > 0
      ? () => {
          removeMountPoints(created);
          return [...restoreLinks(links), ...moveAsideAppeared(absent)];
        }
      : undefined;
  const homeRoot = plan.readOnlyRoots?.[0];
  const held = homeRoot ? { homeRoot } : {};
  if (avail.kind === 'bwrap') return { file: avail.program, args: bwrapArgs(plan, command), sandboxed: true, cleanup, ...held };
  return { file: avail.program, args: ['-p', seatbeltProfile(plan), 'bash', '-c', command], sandboxed: true, ...held };
}

/**
 * One line to add when the sandbox seems to have blocked the command: its own error stays, this
 * says why and how to allow it. Undefined when nothing points at the sandbox.
 */
export function blockedNote(output: string, settings: SandboxSettings, hidden: readonly string[], planMode = false, homeRoot?: string): string | undefined {
  // Node and npm say EROFS / EPERM: "read-only file system" in lower case.
  if (/read-only file system|operation not permitted|\bEROFS\b/i.test(output)) {
    if (planMode) return '[sandbox: plan mode runs commands read-only; the user can switch to build mode with /mode build (or --mode build).]';
    if (homeRoot && settings.mode !== 'read-only')
      return `[sandbox: the workspace ${homeRoot} holds the home folder, so it is read-only for commands (its dotfiles would be writable); start Keen in a project folder to let them write.]`;
    return settings.mode === 'read-only'
      ? '[sandbox: the file system is read-only for commands (sandbox.mode "read-only"); set sandbox.mode to "workspace-write" in your config to let them write the workspace.]'
      : '[sandbox: commands may write only inside the workspace and the temp dir, not its protected paths (.git/config, .git/hooks, .keen, .vscode, …); add a directory with --add-dir, or set sandbox.mode to "off" in your config.]';
  }
  if (!settings.network && /Network is unreachable|Could not resolve host|Temporary failure in name resolution|EAI_AGAIN|getaddrinfo|Name or service not known/.test(output)) {
    return '[sandbox: network access is off for commands; set sandbox.network to true in your config to allow it.]';
  }
  const named = hidden.find((h) => output.includes(h));
  if (named) return `[sandbox: ${named} is hidden from commands (credentials and Keen's own state stay out of reach).]`;
  return undefined;
}

/** The home directory whose credential folders are hidden. */
export function userHome(env: NodeJS.ProcessEnv): string {
  return env.HOME ? resolve(env.HOME) : homedir();
}
