/**
 * The first frame, painted before Ink loads. Ink, React and the layout engine take a while to
 * load and lay out (docs/performance.md); the user should not wait for them to see a prompt. This module (no
 * dependencies but Ink's frame rate) writes the same banner, empty prompt and footer Ink will
 * draw, and puts the terminal in raw mode so keys typed meanwhile are neither echoed nor lost: they wait, unread, in
 * stdin's buffer. When Ink is ready, `handOver` erases the painted rows; Ink draws the identical
 * frame in the same place and reads the waiting keys.
 */
import { terminalText } from '../security/terminal-text.js';
import { RENDER_MAX_FPS } from './render-options.js';

/**
 * How long after Ink read the waiting keys the frame showing them is surely written: Ink draws at
 * most once per 1000 / RENDER_MAX_FPS ms (its first frame, just drawn, started that interval).
 */
export const KEYS_SHOWN_MS = Math.ceil(1000 / RENDER_MAX_FPS) + 1;

export interface FirstFrame {
  /** Erase the painted frame (just before Ink draws). Idempotent. */
  handOver(): void;
  /**
   * After Ink mounted: once Ink listens to stdin, stop buffering and let it read what was typed.
   * Resolves once what was typed at the painted frame is on screen: at once when nothing was,
   * else KEYS_SHOWN_MS after Ink read it. Heavy work that can wait (the highlighter a resumed
   * session loads) starts then, so it does not hold back the frame with the user's first keys.
   * Idempotent.
   */
  release(): Promise<void>;
  /** The REPL could not start: erase the frame and give the terminal back. */
  abort(): void;
}

export interface FirstFrameOptions {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  version: string;
  cwd: string;
  noColor: boolean;
}

const HIDE_CURSOR = '\x1b[?25l';

/** Visible width of a line of this frame (ASCII and single-width box drawing only, escapes removed). */
function visibleLength(line: string): number {
  return [...line.replace(/\x1b\[[0-9;]*m/g, '')].length;
}

export function paintFirstFrame(opts: FirstFrameOptions): FirstFrame {
  const { stdin, stdout } = opts;
  const cols = Math.max(20, stdout.columns || 80);
  const sgr = (codes: string, text: string) => `\x1b[${codes}m${text}\x1b[0m`;
  const colour = (code: string) => (opts.noColor ? '' : `;${code}`);
  const border = (text: string) => sgr(`2${colour('90')}`, text);
  const placeholder = 'Type a message · /help for commands';
  const inner = cols - 4;
  const prompt = `› ${placeholder}`;
  const lines = [
    `${sgr(`1${colour('36')}`, 'keen')}${sgr('2', ` ${opts.version} · ${terminalText(opts.cwd)}`)}`,
    sgr('2', '/help for commands · Ctrl+C twice to exit'),
    '',
    border(`╭${'─'.repeat(cols - 2)}╮`),
    `${border('│')} ${sgr(`1${colour('36')}`, '› ')}${sgr('7', placeholder[0])}${sgr('2', placeholder.slice(1))}${' '.repeat(Math.max(0, inner - prompt.length))} ${border('│')}`,
    border(`╰${'─'.repeat(cols - 2)}╯`),
    ` ${sgr('2', 'starting…')}`,
  ];
  const rows = lines.reduce((n, l) => n + Math.max(1, Math.ceil(visibleLength(l) / cols)), 0);
  stdout.write(`${HIDE_CURSOR}${lines.join('\n')}\n`);

  // A 'readable' listener that reads nothing makes the stream buffer input (paused mode) until
  // Ink attaches its own listener and reads it. 'data' would switch to flowing mode and drop keys.
  const wait = () => undefined;
  try {
    stdin.setRawMode(true);
    stdin.on('readable', wait);
  } catch {
    // not a TTY after all: nothing to keep
  }

  let handed = false;
  let released: Promise<void> | undefined;
  return {
    release() {
      if (released) return released;
      let shown!: () => void;
      released = new Promise<void>((resolve) => (shown = resolve));
      // Ink attaches its listener in an effect; keep ours until then, or the stream stops reading.
      let tries = 0;
      const attempt = () => {
        if (stdin.listenerCount('readable') < 2 && tries++ < 100) {
          setTimeout(attempt, 10);
          return;
        }
        stdin.off('readable', wait);
        // Keys typed before Ink listened are buffered; nothing announces them again, so do it.
        if (stdin.readableLength > 0) {
          stdin.emit('readable');
          setTimeout(shown, KEYS_SHOWN_MS);
        } else shown();
      };
      attempt();
      return released;
    },
    abort() {
      this.handOver();
      stdin.off('readable', wait);
      try {
        stdin.setRawMode(false);
      } catch {
        // not a TTY
      }
      stdin.pause();
      stdout.write('\x1b[?25h');
    },
    handOver() {
      if (handed) return;
      handed = true;
      // Line by line (as Ink erases its own frames): some terminals, tmux among them, copy the
      // screen into the scrollback when it is erased from the top-left corner in one go.
      stdout.write(`${'\x1b[2K\x1b[1A'.repeat(rows)}\x1b[2K\x1b[G`);
    },
  };
}
