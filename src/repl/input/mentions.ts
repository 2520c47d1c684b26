/**
 * `@path` mentions: on submit, each mentioned file inside the working directory (by its real path,
 * never in a credential store) is attached to the message the model receives. The transcript stores that full message; {@link splitAttachments}
 * turns it back into the typed text plus a list of attached paths for display.
 *
 * Images: an `@` mention of a PNG, JPEG, GIF or WebP (by name or by its first bytes), or an
 * absolute image path in the text as a terminal pastes a dragged file (`/a/shot.png`, quoted,
 * `\ `-escaped spaces, `~/…`, `file://…`), attaches the image itself (src/tools/image-file.ts
 * checks it), also from outside the working directory: the text keeps the path as typed.
 */
import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve, relative, isAbsolute, sep } from 'node:path';
import { storeHolding } from '../../tools/credential-stores.js';
import { realStores } from '../../tools/permissions/credential-guard.js';
import { expandUserPath, IMAGE_NAME, loadImageFile, readCapped, sniffImageType, type LoadedImage } from '../../tools/image-file.js';
import { ATTACHMENT_MAX_BYTES } from './attachment-limit.js';

export interface Attachment {
  path: string;
  lines: number;
  truncated: boolean;
}

export interface ExpandedMessage {
  /** What the model receives. */
  text: string;
  attachments: Attachment[];
  /** One line per mention that could not be attached. */
  problems: string[];
  /** Images attached, in the order mentioned. */
  images: LoadedImage[];
}

const MENTION = /(^|\s)@([^\s]+)/g;
const OPEN = (p: string) => `<attached_file path="${p}">`;
const CLOSE = '</attached_file>';

/**
 * A pasted path: a quoted string, or a word whose `\x` escapes stand for x (a dragged file with
 * spaces), preceded by the start or a space.
 */
const PASTED_PATH = /(?<=^|\s)(?:'([^'\n]+)'|"([^"\n]+)"|((?:\\.|[^\s'"\\@])(?:\\.|[^\s'"\\])*))/g;

/** The absolute image paths in `text` as a terminal pastes them, unquoted and unescaped. */
export function pastedImagePaths(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(PASTED_PATH)) {
    const p = m[1] ?? m[2] ?? m[3].replace(/\\(.)/g, '$1');
    if (/^(\/|~\/|file:\/\/)/.test(p) && IMAGE_NAME.test(p)) out.push(p);
  }
  return out;
}

/**
 * Attach the files `text` mentions, and the images of the absolute image paths in it (see the
 * file comment). Mentions that are not files are left as typed; so is a pasted path naming no
 * file.
 */
export function expandMentions(text: string, cwd: string, env: NodeJS.ProcessEnv = process.env): ExpandedMessage {
  const attachments: Attachment[] = [];
  const problems: string[] = [];
  const blocks: string[] = [];
  const images: LoadedImage[] = [];
  const seen = new Set<string>();
  const home = env.HOME || undefined;
  const attachImage = (abs: string, shown: string) => {
    const loaded = loadImageFile(abs, cwd, env, shown);
    if ('problem' in loaded) problems.push(`${loaded.problem}; not attached`);
    else images.push(loaded);
  };
  for (const raw of pastedImagePaths(text)) {
    const abs = resolve(cwd, expandUserPath(raw, home));
    if (seen.has(abs) || !isFile(abs)) continue;
    seen.add(abs);
    attachImage(abs, raw);
  }
  for (const m of text.matchAll(MENTION)) {
    const raw = m[2].replace(/[.,;:!?)]+$/, '');
    const abs = resolve(cwd, expandUserPath(raw, home));
    const rel = relative(cwd, abs);
    if (seen.has(abs)) continue;
    seen.add(abs);
    const image = IMAGE_NAME.test(raw) && isFile(abs);
    if (rel.startsWith('..') || isAbsolute(rel)) {
      // An image the user names elsewhere is theirs to send; any other file outside is not attached.
      if (image) attachImage(abs, `@${raw}`);
      else problems.push(`@${raw} is outside the working directory; not attached`);
      continue;
    }
    // A name inside the folder is judged where the file really is: a symlink the repository ships may lead anywhere.
    const leads = realOutside(abs, cwd, env);
    if (leads) {
      problems.push(`@${raw} leads ${leads}; not attached`);
      continue;
    }
    if (image) {
      attachImage(abs, `@${raw}`);
      continue;
    }
    let size: number;
    try {
      const st = statSync(abs);
      if (!st.isFile()) continue;
      size = st.size;
    } catch {
      continue;
    }
    // Only the head that can be attached is read: a file of gigabytes costs what it shows.
    const buf = readHead(abs, Math.min(size, ATTACHMENT_MAX_BYTES));
    if (typeof buf === 'string') {
      problems.push(`@${raw} could not be read (${buf}); not attached`);
      continue;
    }
    if (sniffImageType(buf)) {
      attachImage(abs, `@${raw}`);
      continue;
    }
    if (buf.subarray(0, 8000).includes(0)) {
      problems.push(`@${raw} looks binary; not attached`);
      continue;
    }
    const truncated = size > ATTACHMENT_MAX_BYTES;
    let content = buf.toString('utf8');
    if (truncated) content += `\n[truncated: the file has ${size} bytes; only the first ${ATTACHMENT_MAX_BYTES} are attached]`;
    const shown = rel.split(sep).join('/');
    blocks.push(`${OPEN(shown)}\n${content.replace(/\n$/, '')}\n${CLOSE}`);
    attachments.push({ path: shown, lines: content.split('\n').length, truncated });
  }
  return { text: blocks.length ? `${text}\n\n${blocks.join('\n\n')}` : text, attachments, problems, images };
}

/** Where `abs` really is, when that is outside `cwd`'s real path or in a credential store; else undefined. */
function realOutside(abs: string, cwd: string, env: NodeJS.ProcessEnv): string | undefined {
  let real: string;
  let root: string;
  try {
    real = realpathSync(abs);
    root = realpathSync(cwd);
  } catch {
    return undefined;
  }
  const rel = relative(root, real);
  if (rel.startsWith('..') || isAbsolute(rel)) return `outside the working directory (${real})`;
  if (storeHolding(real, realStores(env.HOME || homedir(), env))) return `into a credential store (${real})`;
  return undefined;
}

function isFile(abs: string): boolean {
  try {
    return statSync(abs).isFile();
  } catch {
    return false;
  }
}

/** The first `bytes` bytes of `file` (fewer if it shrank), or the error code when it cannot be read. */
function readHead(file: string, bytes: number): Buffer | string {
  try {
    return readCapped(file, bytes);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? 'read error';
  }
}

/** Split a stored user message into what was typed and the paths attached after it. */
export function splitAttachments(message: string): { text: string; attachments: string[] } {
  const attachments: string[] = [];
  let rest = message;
  for (;;) {
    const m = /\n\n<attached_file path="([^"]*)">\n[\s\S]*?\n<\/attached_file>$/.exec(rest);
    if (!m) break;
    attachments.unshift(m[1]);
    rest = rest.slice(0, m.index);
  }
  return { text: rest, attachments };
}
