/** Processes a test started, seen from outside. */
import fs from 'node:fs';

/** Whether `pid` still runs: a killed process left unreaped (PID 1 in a container may be slow to reap) does not. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
