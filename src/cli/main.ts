/**
 * Entry point. Imports nothing heavy at top level: `keen --version` must stay as fast as a bare
 * `node -e 0`, so commander, zod, Ink and every provider SDK load only when a command needs them.
 */
import { isVersionRequest, VERSION } from '../version.js';

async function main(argv: string[]): Promise<number> {
  if (isVersionRequest(argv.slice(2))) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const { runCli } = await import('./commands.js');
  return runCli(argv);
}

/**
 * Once the command is done (its output written, the session closed), Keen exits when nothing is
 * left to do — and at the latest after LINGER_MS: a socket nobody will ever use again (a proxy that
 * never answered a CONNECT, a server that keeps a connection open) must not keep a finished
 * `keen run` alive. The timer is unref'd, so a normal exit never waits for it; output still
 * flowing to a slow reader (a pipe is asynchronous on macOS) is waited for, never cut.
 */
const LINGER_MS = 2000;

function exitSoon(): void {
  const check = () => {
    if (process.stdout.writableLength > 0 || process.stderr.writableLength > 0) setTimeout(check, 200).unref();
    else process.exit();
  };
  setTimeout(check, LINGER_MS).unref();
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
    exitSoon();
  },
  async (err: unknown) => {
    const { reportFatal } = await import('./report.js');
    process.exitCode = reportFatal(err);
    exitSoon();
  },
);
