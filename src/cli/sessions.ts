import { keenHome } from '../config/paths.js';
import { KeenError } from '../errors.js';
import { listSessionPage } from '../transcript/list.js';
import { formatSessionList } from '../transcript/list-format.js';
import { forStream } from '../security/terminal-text.js';
import { SESSIONS_PAGE_SIZE } from './sessions-page.js';

/**
 * `keen sessions [--all] [--page N]`: this directory's sessions (or every directory's), newest
 * first, SESSIONS_PAGE_SIZE to a page; only the page's transcripts are read beyond their mtime.
 */
export async function runSessionsCommand(opts: { all?: boolean; page?: string }): Promise<number> {
  const page = Number(opts.page ?? '1');
  if (!Number.isInteger(page) || page < 1) throw new KeenError(`--page must be a whole number from 1, not ${opts.page}`, 2);
  const home = keenHome();
  const { rows, total } = await listSessionPage(home, process.cwd(), { all: opts.all, limit: SESSIONS_PAGE_SIZE, offset: (page - 1) * SESSIONS_PAGE_SIZE });
  if (total === 0) {
    process.stdout.write(opts.all ? 'No sessions yet.\n' : 'No sessions in this directory yet (`keen sessions --all` lists every directory).\n');
    return 0;
  }
  const pages = Math.ceil(total / SESSIONS_PAGE_SIZE);
  if (rows.length === 0) {
    process.stdout.write(`No page ${page}: ${total} ${total === 1 ? 'session fills' : 'sessions fill'} ${pages} ${pages === 1 ? 'page' : 'pages'}.\n`);
    return 0;
  }
  // Titles are the first words of a message and directories are names from disk: sanitised for a terminal.
  process.stdout.write(forStream(process.stdout, formatSessionList(rows, { showCwd: opts.all })));
  if (pages > 1) {
    const next = page < pages ? `; \`keen sessions${opts.all ? ' --all' : ''} --page ${page + 1}\` shows older ones` : '';
    process.stdout.write(`Page ${page} of ${pages} (${total} sessions)${next}.\n`);
  }
  return 0;
}
