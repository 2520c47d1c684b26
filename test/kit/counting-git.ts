import fs from 'node:fs';
import path from 'node:path';

/**
 * A stand-in git for GitStatusCache's `command`: each run counts itself in a file in `dir` and
 * prints a status naming the count (`?? <label>-<n>.txt`), so a test sees which run a prompt holds.
 */
export function countingGit(dir: string, label = 'run') {
  const counter = path.join(dir, 'git-runs');
  const command = {
    file: process.execPath,
    args: [
      '-e',
      `const fs=require('fs');const f=process.argv[1];const n=(fs.existsSync(f)?+fs.readFileSync(f,'utf8'):0)+1;fs.writeFileSync(f,String(n));process.stdout.write('## main\\n?? ${label}-'+n+'.txt\\n')`,
      counter,
    ],
  };
  return {
    command,
    /** How many times it ran. */
    runs: () => (fs.existsSync(counter) ? Number(fs.readFileSync(counter, 'utf8')) : 0),
    /** Count from zero again. */
    reset: () => fs.rmSync(counter, { force: true }),
  };
}
