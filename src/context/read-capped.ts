import fs from 'node:fs';

/** A text file read with a byte cap. */
export interface CappedFile {
  path: string;
  content: string;
  /** The file was longer than the cap; `content` holds its first `cap` bytes. */
  truncated: boolean;
}

/**
 * Reads at most `cap` bytes of a regular file. Missing files, directories and unreadable files
 * are `undefined`: every context file is optional. A multi-byte character cut by the cap is
 * dropped rather than shown as a replacement character.
 */
export function readCapped(file: string, cap: number): CappedFile | undefined {
  let buf: Buffer;
  try {
    if (!fs.statSync(file).isFile()) return undefined;
    buf = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  const truncated = buf.length > cap;
  let content = buf.subarray(0, cap).toString('utf8');
  if (truncated) content = content.replace(/\uFFFD$/, '');
  return { path: file, content, truncated };
}

/** The note appended to a capped file's text in the system prompt. */
export function capNote(file: CappedFile, cap: number): string {
  return file.truncated ? `\n[truncated to ${cap} bytes]` : '';
}
