import { execFileSync } from 'node:child_process';
import type { TmuxKeen } from './tmux.js';

/** Pastes `text` into the pane as a terminal does: bracketed (`paste-buffer -p`), since keen asks for it. */
export function paste(t: TmuxKeen, text: string): void {
  execFileSync('tmux', ['-L', t.socket, 'set-buffer', '-b', 'keen-test', '--', text], { stdio: 'ignore' });
  execFileSync('tmux', ['-L', t.socket, 'paste-buffer', '-p', '-d', '-b', 'keen-test', '-t', 'main'], { stdio: 'ignore' });
}
