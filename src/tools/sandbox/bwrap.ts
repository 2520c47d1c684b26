import { sep } from 'node:path';
import type { SandboxPlan } from './settings.js';

/**
 * A command that is root inside the sandbox (Keen run as root) keeps no capability that touches
 * mounts: it cannot unmount the empty folders over the credential stores, remount a read-only
 * bind or mount its own. Root keeps the file-permission ones its work needs in a folder another
 * user owns (`docker run -v $PWD:/src`): overriding permission bits, owning and chowning files.
 * Never CAP_DAC_READ_SEARCH, whose open-by-handle reaches files under the masks.
 */
export function capabilityArgs(uid: number | undefined = process.getuid?.()): string[] {
  const root = uid === 0 ? ['--cap-add', 'CAP_DAC_OVERRIDE', '--cap-add', 'CAP_FOWNER', '--cap-add', 'CAP_CHOWN'] : [];
  return ['--cap-drop', 'ALL', ...root];
}

const under = (root: string, p: string) => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);

/**
 * The workspace roots. One that is read-only (read-only mode, or a root holding the home folder)
 * is left to the read-only `/` unless a private folder hides it: binding `/` (Keen run in `/`)
 * again would bring back the host's /tmp, /run, /dev and /proc. A private folder inside a
 * writable root (`--add-dir /var`) is made private again, with what is exposed in it.
 */
function rootBinds(plan: SandboxPlan): string[] {
  const priv = plan.privateDirs ?? [plan.tmp];
  const readOnly = [...(plan.readOnly ? plan.writable : []), ...(plan.readOnlyRoots ?? [])];
  const writable = plan.readOnly ? [] : plan.writable;
  const out: string[] = [];
  for (const dir of readOnly) if (priv.some((p) => under(p, dir))) out.push('--ro-bind', dir, dir);
  for (const dir of writable) out.push('--bind', dir, dir);
  for (const p of priv.filter((d) => writable.some((w) => w !== d && under(w, d)))) {
    out.push('--tmpfs', p);
    for (const e of (plan.exposed ?? []).filter((x) => under(p, x))) out.push('--ro-bind-try', e, e);
    for (const dir of writable.filter((w) => w !== p && under(p, w))) out.push('--bind', dir, dir);
  }
  return out;
}

/**
 * bubblewrap arguments for `plan`, followed by `bash -c command`. The root file system is bound
 * read-only; /tmp, /var/tmp, /run and /dev (with /dev/shm) are private and empty, so no host
 * socket there is reachable; the allowed host paths are bound back; then the writable roots
 * (read-only in read-only mode), the protected paths inside them read-only (absent ones get an
 * empty read-only mount point), and last the hidden paths (an empty tmpfs for a directory,
 * /dev/null for a file). Commands keep no capability over mounts (`capabilityArgs`), get their own PID
 * namespace with a fresh /proc (no Keen process, and no Keen environment, is visible), die with
 * Keen (`--die-with-parent`), and, when their first process ends, every process they started
 * ends with the namespace. Without network they get their own network namespace, which also
 * cuts off the host's abstract unix sockets.
 */
export function bwrapArgs(plan: SandboxPlan, command: string): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  for (const dir of plan.privateDirs ?? [plan.tmp]) args.push('--tmpfs', dir);
  for (const p of plan.exposed ?? []) args.push('--ro-bind-try', p, p);
  args.push(...rootBinds(plan));
  if (!plan.readOnly) {
    for (const m of plan.protected ?? []) {
      if (m.anchor) args.push('--bind', m.path, m.path);
      else if (m.exists) args.push('--ro-bind', m.path, m.path);
      else if (m.dir) args.push('--tmpfs', m.path, '--remount-ro', m.path);
      else if (plan.emptyFile) args.push('--ro-bind', plan.emptyFile, m.path);
    }
  }
  for (const h of plan.hidden) {
    if (h.dir) args.push('--tmpfs', h.path);
    else args.push('--ro-bind', '/dev/null', h.path);
  }
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', '--die-with-parent', ...capabilityArgs());
  if (!plan.network) args.push('--unshare-net');
  args.push('--chdir', plan.cwd, '--', 'bash', '-c', command);
  return args;
}
