import { keenHome } from '../config/paths.js';
import { formatSessionList, listSessions } from '../transcript/list.js';
import { forStream } from '../security/terminal-text.js';

/** `keen sessions [--all]`: this directory's sessions (or every directory's), newest first. */
export async function runSessionsCommand(opts: { all?: boolean }): Promise<number> {
  const home = keenHome();
  const rows = await listSessions(home, process.cwd(), { all: opts.all });
  if (rows.length === 0) {
    process.stdout.write(opts.all ? 'No sessions yet.\n' : 'No sessions in this directory yet (`keen sessions --all` lists every directory).\n');
    return 0;
  }
  // Titles are the first words of a message and directories are names from disk: sanitised for a terminal.
  process.stdout.write(forStream(process.stdout, formatSessionList(rows, { showCwd: opts.all })));
  return 0;
}
