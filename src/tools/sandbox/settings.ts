/**
 * Sandbox settings (`sandbox` in config). `workspace-write`: the workspace, `--add-dir`
 * directories and the system temp dir are writable, the rest of the file system read-only;
 * `read-only`: nothing outside a private /tmp is writable; `off`: commands run unconfined.
 * Either way `$KEEN_HOME` and the user's credential folders are hidden and the network is off
 * unless `network` is true.
 */
export type SandboxMode = 'workspace-write' | 'read-only' | 'off';

export interface SandboxSettings {
  mode: SandboxMode;
  network: boolean;
}

export const DEFAULT_SANDBOX: SandboxSettings = { mode: 'workspace-write', network: false };

/** What a sandboxed command may touch. Every path is absolute and real. */
export interface SandboxPlan {
  cwd: string;
  /** The workspace roots: writable, except in read-only mode. */
  writable: string[];
  /** Existing directories and files to hide (KEEN_HOME, ~/.ssh, …). */
  hidden: { path: string; dir: boolean }[];
  network: boolean;
  /** The system temp dir: writable in workspace-write, a private empty one in read-only. */
  tmp: string;
  readOnly: boolean;
}
