/**
 * What runs inside Keen's own sandboxed git cannot type into the user's terminal: the git status
 * of the REPL's prompt runs in a session of its own (bubblewrap `--new-session`), so a program
 * there has no controlling terminal to push keys into with TIOCSTI. The stand-in for a hostile
 * program git might run is a `git` on PATH that tries exactly that before running the real one.
 * Real tmux, real bubblewrap, real git. Needs `npm run build` first.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect } from 'vitest';
import { itSandbox } from '../kit/sandbox.js';
import { useTmuxRig } from './tmux.js';

const rig = useTmuxRig();
const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
/** TIOCSTI: push one byte into the input queue of the controlling terminal. */
const INJECT = `perl -e 'open(my $t, "+<", "/dev/tty") or exit 0; ioctl($t, 0x5412, $_) for split //, "echo INJECTED-KEYS"'`;
let shimDir: string | undefined;

afterEach(() => {
  if (shimDir) fs.rmSync(shimDir, { recursive: true, force: true });
  shimDir = undefined;
});

itSandbox(
  'a program inside the sandboxed git status pushes no key into the terminal',
  async () => {
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: rig.ws.cwd });
    // Outside /tmp, which the sandbox replaces: the git found inside it is this one.
    shimDir = fs.mkdtempSync(path.join(os.homedir(), '.keen-git-shim-'));
    fs.writeFileSync(path.join(shimDir, 'git'), `#!/bin/sh\ncase "$*" in *status*) ${INJECT} ;; esac\nexec '${REAL_GIT}' "$@"\n`, { mode: 0o755 });
    const t = rig.start({ env: { PATH: `${shimDir}${path.delimiter}${process.env.PATH}` } });
    await t.waitFor('Type a message');
    // The shim ran: its git status reached a request. On a busy machine the first turn may go
    // while it still runs (the prompt says so); a later turn carries the finished one.
    const status = /## No commits yet on main/;
    for (let turn = 1; turn <= 5 && !rig.fake.requests.some((r) => status.test(JSON.stringify(r.body))); turn++) {
      rig.fake.enqueue({ steps: [{ text: `hi there ${turn}` }] });
      t.type(`hello ${turn}`);
      await t.waitFor(`hi there ${turn}`);
    }
    expect(rig.fake.requests.some((r) => status.test(JSON.stringify(r.body)))).toBe(true);
    await new Promise((r) => setTimeout(r, 500));
    expect(t.capture()).not.toContain('INJECTED-KEYS');
  },
  30_000,
);
