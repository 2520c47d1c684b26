import type { SandboxPlan } from './settings.js';

/**
 * bubblewrap arguments for `plan`, followed by `bash -c command`. The root file system is bound
 * read-only; /tmp, /var/tmp, /run and /dev (with /dev/shm) are private and empty, so no host
 * socket there is reachable; the allowed host paths are bound back; then the writable roots
 * (read-only in read-only mode), the protected paths inside them read-only (absent ones get an
 * empty read-only mount point), and last the hidden paths (an empty tmpfs for a directory,
 * /dev/null for a file). Commands get their own PID namespace with a fresh /proc (no Keen
 * process, and no Keen environment, is visible), die with Keen (`--die-with-parent`), and, when
 * their first process ends, every process they started ends with the namespace. Without network
 * they get their own network namespace, which also cuts off the host's abstract unix sockets.
 */
export function bwrapArgs(plan: SandboxPlan, command: string): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  for (const dir of plan.privateDirs ?? [plan.tmp]) args.push('--tmpfs', dir);
  for (const p of plan.exposed ?? []) args.push('--ro-bind-try', p, p);
  for (const dir of plan.writable) args.push(plan.readOnly ? '--ro-bind' : '--bind', dir, dir);
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
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', '--die-with-parent');
  if (!plan.network) args.push('--unshare-net');
  args.push('--chdir', plan.cwd, '--', 'bash', '-c', command);
  return args;
}
