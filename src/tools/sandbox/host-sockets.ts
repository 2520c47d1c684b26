import { realpathSync } from 'node:fs';
import { isAbsolute, resolve, join } from 'node:path';

/**
 * Host IPC a sandboxed command must not reach: a unix socket is connectable through a read-only
 * mount, and a server behind one (tmux, screen, an editor, D-Bus, docker, ssh-agent) runs
 * whatever its client asks, outside the sandbox. The sandbox gets a private /tmp, /var/tmp and
 * /dev/shm and an empty /run; this module names what else to hide and which variables pointing at
 * such sockets to drop. `sandbox.hostSockets` in the user's own config can let kinds through.
 */
export type HostSocketKind = 'ssh-agent' | 'x11' | 'wayland' | 'dbus' | 'docker' | 'runtime-dir';

/** Variables that name a host socket (or a server to talk to), by kind; undefined kind: never passed. */
const SOCKET_VARS: Record<string, HostSocketKind | undefined> = {
  SSH_AUTH_SOCK: 'ssh-agent',
  SSH_AGENT_PID: 'ssh-agent',
  DISPLAY: 'x11',
  XAUTHORITY: 'x11',
  WAYLAND_DISPLAY: 'wayland',
  WAYLAND_SOCKET: 'wayland',
  DBUS_SESSION_BUS_ADDRESS: 'dbus',
  DBUS_SYSTEM_BUS_ADDRESS: 'dbus',
  DOCKER_HOST: 'docker',
  CONTAINER_HOST: 'docker',
  XDG_RUNTIME_DIR: 'runtime-dir',
  TMUX: undefined,
  TMUX_PANE: undefined,
  STY: undefined,
  GPG_AGENT_INFO: undefined,
  VSCODE_IPC_HOOK: undefined,
  VSCODE_IPC_HOOK_CLI: undefined,
  VSCODE_GIT_IPC_HANDLE: undefined,
  KITTY_LISTEN_ON: undefined,
  WEZTERM_UNIX_SOCKET: undefined,
  ALACRITTY_SOCKET: undefined,
  NVIM: undefined,
  NVIM_LISTEN_ADDRESS: undefined,
  EMACS_SOCKET_NAME: undefined,
  SWAYSOCK: undefined,
  I3SOCK: undefined,
  PULSE_SERVER: undefined,
};

/** The environment without the variables that point at host sockets (except the kinds allowed). */
export function withoutHostSockets(env: NodeJS.ProcessEnv, allowed: readonly HostSocketKind[] = []): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (name in SOCKET_VARS) {
      const kind = SOCKET_VARS[name];
      if (!kind || !allowed.includes(kind)) continue;
    }
    out[name] = value;
  }
  return out;
}

/** The socket path a variable's value names (`unix:path=…`, `unix://…`, a plain absolute path). */
function socketPathOf(name: string, value: string): string | undefined {
  if (name === 'DBUS_SESSION_BUS_ADDRESS' || name === 'DBUS_SYSTEM_BUS_ADDRESS') return /unix:path=([^,;]+)/.exec(value)?.[1];
  if (name === 'DOCKER_HOST' || name === 'CONTAINER_HOST') return /^unix:\/\/(\/.+)$/.exec(value)?.[1];
  if (name === 'TMUX') return value.split(',')[0];
  if (name === 'KITTY_LISTEN_ON') return /^unix:(\/.+)$/.exec(value)?.[1];
  return isAbsolute(value) ? value : undefined;
}

/**
 * Paths to hide besides the private /tmp, /var/tmp, /dev/shm and /run: every socket a variable
 * names (ssh-agent's may be anywhere, `$XDG_RUNTIME_DIR` too) and docker's well-known sockets,
 * except those of an allowed kind.
 */
export function hostSocketPaths(env: NodeJS.ProcessEnv, allowed: readonly HostSocketKind[] = []): string[] {
  const out = new Set<string>();
  for (const [name, kind] of Object.entries(SOCKET_VARS)) {
    const value = env[name]?.trim();
    if (!value || (kind && allowed.includes(kind)) || name === 'XAUTHORITY') continue;
    const p = name === 'XDG_RUNTIME_DIR' ? value : socketPathOf(name, value);
    if (p && isAbsolute(p)) out.add(resolve(p));
  }
  if (!allowed.includes('docker')) for (const p of DOCKER_SOCKETS) out.add(p);
  return [...out];
}

const DOCKER_SOCKETS = ['/var/run/docker.sock', '/run/docker.sock', '/run/podman/podman.sock', '/run/containerd/containerd.sock'];

/**
 * The file `/etc/resolv.conf` links to (systemd-resolved's `/run/systemd/resolve/stub-resolv.conf`),
 * or undefined when it is no link. Only that file is bound back, not its folder: the folder also
 * holds resolved's varlink socket.
 */
export function resolverFile(resolvConf = '/etc/resolv.conf'): string | undefined {
  try {
    const target = realpathSync(resolvConf);
    return target === resolve(resolvConf) ? undefined : target;
  } catch {
    return undefined;
  }
}

/**
 * Host paths bound back (read-only) over the private /tmp and /run for the allowed kinds: the
 * agent's socket, the X11 socket folder and cookie, the Wayland socket, the D-Bus sockets,
 * docker's, or the whole runtime folder. Always: the file /etc/resolv.conf links to (`resolvConf`
 * names another link, for a test).
 */
export function exposedHostPaths(env: NodeJS.ProcessEnv, allowed: readonly HostSocketKind[] = [], resolvConf?: string): string[] {
  const out = [resolverFile(resolvConf)].filter((p): p is string => !!p);
  const v = (name: string) => env[name]?.trim() || undefined;
  const runtime = v('XDG_RUNTIME_DIR');
  for (const kind of allowed) {
    if (kind === 'ssh-agent') out.push(...[v('SSH_AUTH_SOCK')].filter((p): p is string => !!p));
    if (kind === 'x11') out.push('/tmp/.X11-unix', ...[v('XAUTHORITY')].filter((p): p is string => !!p));
    if (kind === 'wayland') {
      const display = v('WAYLAND_DISPLAY');
      if (display) out.push(isAbsolute(display) ? display : join(runtime ?? '/run/user', display));
    }
    if (kind === 'dbus') out.push('/run/dbus', ...[socketPathOf('DBUS_SESSION_BUS_ADDRESS', v('DBUS_SESSION_BUS_ADDRESS') ?? '')].filter((p): p is string => !!p));
    if (kind === 'docker') out.push(...DOCKER_SOCKETS, ...[socketPathOf('DOCKER_HOST', v('DOCKER_HOST') ?? '')].filter((p): p is string => !!p));
    if (kind === 'runtime-dir' && runtime) out.push(runtime);
  }
  return [...new Set(out.map((p) => resolve(p)))];
}
