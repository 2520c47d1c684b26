import type { SandboxPlan } from './settings.js';

/**
 * bubblewrap arguments for `plan`, followed by `bash -c command`. The root file system is bound
 * read-only, then the writable directories over it, then hidden paths (an empty tmpfs for a
 * directory, /dev/null for a file). Commands get their own PID namespace with a fresh /proc (no
 * Keen process, and no Keen environment, is visible), die with Keen (`--die-with-parent`), and,
 * when their first process ends, every process they started ends with the namespace.
 */
export function bwrapArgs(plan: SandboxPlan, command: string): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  if (plan.readOnly) args.push('--tmpfs', plan.tmp);
  else args.push('--bind', plan.tmp, plan.tmp);
  // Bound again after the temp dir, which may hold them (read-only mode masks it with a tmpfs).
  for (const dir of plan.writable) if (dir !== plan.tmp) args.push(plan.readOnly ? '--ro-bind' : '--bind', dir, dir);
  for (const h of plan.hidden) {
    if (h.dir) args.push('--tmpfs', h.path);
    else args.push('--ro-bind', '/dev/null', h.path);
  }
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', '--die-with-parent');
  if (!plan.network) args.push('--unshare-net');
  args.push('--chdir', plan.cwd, '--', 'bash', '-c', command);
  return args;
}
