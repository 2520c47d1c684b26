import type { SandboxPlan } from './settings.js';

function quote(p: string): string {
  return `"${p.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * The macOS `sandbox-exec` profile for `plan`: everything allowed except writes outside the
 * writable directories, reads of hidden paths, and (unless allowed) the network. macOS has no
 * PID namespace: commands can see other processes, as without a sandbox.
 */
export function seatbeltProfile(plan: SandboxPlan): string {
  const lines = ['(version 1)', '(allow default)', '(deny file-write*)'];
  const writable = plan.readOnly ? [] : [...plan.writable, plan.tmp];
  const allowed = [...writable.map((p) => `(subpath ${quote(p)})`), '(literal "/dev/null")', '(regex #"^/dev/tty")'];
  lines.push(`(allow file-write* ${allowed.join(' ')})`);
  for (const h of plan.hidden) lines.push(`(deny file-read* file-write* (${h.dir ? 'subpath' : 'literal'} ${quote(h.path)}))`);
  if (!plan.network) lines.push('(deny network*)', '(allow network* (local unix))');
  return lines.join('\n');
}
