import type { SandboxPlan } from './settings.js';

function quote(p: string): string {
  return `"${p.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * The macOS `sandbox-exec` profile for `plan`: everything allowed except writes outside the
 * writable directories and to their protected paths, reads of hidden paths, and (unless allowed)
 * the network. macOS has no PID namespace: commands can see other processes, as without a
 * sandbox; and no private /tmp: local unix sockets stay reachable (docs/permissions.md).
 */
export function seatbeltProfile(plan: SandboxPlan): string {
  const lines = ['(version 1)', '(allow default)', '(deny file-write*)'];
  const writable = plan.readOnly ? [] : [...plan.writable, plan.tmp];
  const allowed = [...writable.map((p) => `(subpath ${quote(p)})`), '(literal "/dev/null")', '(regex #"^/dev/tty")'];
  lines.push(`(allow file-write* ${allowed.join(' ')})`);
  // Protected paths inside the workspace, present or not: a path rule needs no mount point.
  if (!plan.readOnly) for (const m of (plan.protected ?? []).filter((p) => !p.anchor)) lines.push(`(deny file-write* (${m.dir ? 'subpath' : 'literal'} ${quote(m.path)}))`);
  for (const h of plan.hidden) lines.push(`(deny file-read* file-write* (${h.dir ? 'subpath' : 'literal'} ${quote(h.path)}))`);
  if (!plan.network) lines.push('(deny network*)', '(allow network* (local unix))');
  return lines.join('\n');
}
