import type { HostSocketKind } from './host-sockets.js';

/**
 * Sandbox settings (`sandbox` in config). `workspace-write`: the workspace and `--add-dir`
 * directories are writable (their protected paths excepted), the rest of the file system
 * read-only, /tmp private; `read-only`: nothing outside a private /tmp is writable (plan mode
 * always runs bash so); `off`: commands run unconfined. Either way `$KEEN_HOME`, the credential
 * stores and the host's sockets are hidden and the network is off unless `network` is true.
 */
export type SandboxMode = 'workspace-write' | 'read-only' | 'off';

export interface SandboxSettings {
  mode: SandboxMode;
  network: boolean;
  /** Host socket kinds let through (`sandbox.hostSockets`, honoured from the user's own config only). */
  hostSockets?: readonly HostSocketKind[];
}

export const DEFAULT_SANDBOX: SandboxSettings = { mode: 'workspace-write', network: false };

/** What a sandboxed command may touch. Every path is absolute and real. */
export interface SandboxPlan {
  cwd: string;
  /** The workspace roots: writable, except in read-only mode. */
  writable: string[];
  /** Workspace roots that hold the home folder: read-only in every mode. */
  readOnlyRoots?: string[];
  /** Existing directories and files to hide (KEEN_HOME, credential stores, host sockets). */
  hidden: { path: string; dir: boolean }[];
  network: boolean;
  /** The system temp dir (macOS: writable in workspace-write). Linux gives every command a private /tmp. */
  tmp: string;
  readOnly: boolean;
  /** Replaced by empty private folders (Linux): /tmp, /var/tmp, /run. */
  privateDirs?: string[];
  /** Host paths bound back over the private folders (allowed sockets, the resolver's file). */
  exposed?: string[];
  /** Protected paths inside the writable roots, bound read-only; `exists: false` ones get a mount point. */
  protected?: { path: string; dir: boolean; exists: boolean; anchor?: boolean }[];
  /** The empty read-only file bound over absent protected files. */
  emptyFile?: string;
  /** Mount points bubblewrap will create for absent protected paths (removed after the command). */
  created?: string[];
  /** Protected paths that are symlinks, put back after the command (`restoreLinks`). */
  links?: { path: string; target: string }[];
  /** Absent files that must not appear (a git dir's `commondir`): moved aside after the command (`moveAsideAppeared`). */
  mustStayAbsent?: string[];
}
