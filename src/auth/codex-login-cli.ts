import { spawn } from 'node:child_process';
import { childEnv, DESKTOP_VARIABLES } from '../security/child-env.js';
import { keenHome } from '../config/paths.js';
import { forStream } from '../security/terminal-text.js';
import { loginCodex } from './codex-login.js';

export interface RunCodexLoginOptions {
  env?: NodeJS.ProcessEnv;
  /** Where instructions go (default stderr, keeping stdout clean for scripts). */
  write?: (text: string) => void;
  /** Opens the sign-in URL; default: the platform's opener, best effort. */
  openBrowser?: (url: string) => void;
  /** Callback port; default 1455 (the one registered for the Codex client). */
  port?: number;
  signal?: AbortSignal;
}

/**
 * `keen login codex`: prints the sign-in URL, tries to open a browser, waits for the callback and
 * reports where the tokens went. Ctrl-C cancels. Returns the exit code; failures throw KeenError.
 */
export async function runCodexLogin(opts: RunCodexLoginOptions = {}): Promise<number> {
  const env = opts.env ?? process.env;
  const write = opts.write ?? ((t: string) => process.stderr.write(t));
  const ac = new AbortController();
  const onSigint = () => ac.abort();
  opts.signal?.addEventListener('abort', onSigint, { once: true });
  process.once('SIGINT', onSigint);
  try {
    const result = await loginCodex({
      home: keenHome(env),
      env,
      port: opts.port,
      signal: ac.signal,
      onUrl: (url) => {
        write(`Sign in with your ChatGPT account in the browser. If it does not open, visit:\n\n  ${url}\n\nWaiting for the sign-in to finish (Ctrl-C to cancel)…\n`);
        (opts.openBrowser ?? openInBrowser)(url);
      },
    });
    const who = result.email ? ` as ${result.email}` : '';
    // The e-mail comes from the sign-in server's token.
    write(`Signed in to Codex${forStream(process.stderr, who)}. Credentials saved to ${result.path} (readable only by you).\n`);
    return 0;
  } finally {
    process.off('SIGINT', onSigint);
    opts.signal?.removeEventListener('abort', onSigint);
  }
}

function openInBrowser(url: string): void {
  const [cmd, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  try {
    // The opener gets the display and session bus, not Keen's credentials.
    const child = spawn(cmd as string, args as string[], { stdio: 'ignore', detached: true, env: childEnv(process.env, DESKTOP_VARIABLES) });
    child.on('error', () => {}); // no opener installed: the printed URL is enough
    child.unref();
  } catch {
    /* same */
  }
}
