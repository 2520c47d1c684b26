/**
 * Entry point. Imports nothing heavy at top level: `keen --version` must stay as fast as a bare
 * `node -e 0`, so commander, zod, Ink and every provider SDK load only when a command needs them.
 */
import { VERSION } from '../version.js';

async function main(argv: string[]): Promise<number> {
  const args = argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V' || args[0] === '-v')) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const { runCli } = await import('./commands.js');
  return runCli(argv);
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  async (err: unknown) => {
    const { reportFatal } = await import('./report.js');
    process.exitCode = reportFatal(err);
  },
);
