/**
 * Tab completion for the prompt: slash commands at the start of the input, and `@path` mentions
 * anywhere (relative to the working directory). Reads directories synchronously: a Tab press
 * lists one directory (or reuses the last read while the directory is unchanged).
 */
import { type Dirent, readdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { selectSmallest } from '../../tools/first-sorted.js';
import { matchCommands, type SlashCommand } from '../slash-commands.js';

export interface Completion {
  /** The new input text and cursor, when Tab changes the input. */
  text?: string;
  cursor?: number;
  /** Candidates to show under the input (empty when the completion was unique). */
  candidates: string[];
}

const MAX_CANDIDATES = 50;

function commonPrefix(values: readonly string[]): string {
  if (values.length === 0) return '';
  let prefix = values[0];
  for (const v of values) {
    while (!v.startsWith(prefix)) prefix = prefix.slice(0, -1);
  }
  return prefix;
}

/** Slash commands matching the input while it is a bare `/word` (for the suggestion list too). */
export function slashCandidates(text: string): SlashCommand[] {
  const m = /^\/([\w-]*)$/.exec(text);
  return m ? matchCommands(m[1]) : [];
}

function completeSlash(text: string, extra: readonly SlashCommand[]): Completion | undefined {
  const m = /^\/([\w-]*)$/.exec(text);
  if (!m) return undefined;
  const matches = [...matchCommands(m[1]), ...extra.filter((c) => c.name.startsWith(m[1].toLowerCase()))];
  if (matches.length === 0) return { candidates: [] };
  if (matches.length === 1) {
    const c = matches[0];
    const next = `/${c.name}${c.args ? ' ' : ''}`;
    return { text: next, cursor: next.length, candidates: [] };
  }
  const names = matches.map((c) => c.name);
  const prefix = `/${commonPrefix(names)}`;
  return { text: prefix, cursor: prefix.length, candidates: names.map((n) => `/${n}`) };
}

/** The `@…` token that ends at `cursor`, if any. */
export function mentionAt(text: string, cursor: number): { start: number; partial: string } | undefined {
  const before = text.slice(0, cursor);
  const m = /(^|\s)@([^\s]*)$/.exec(before);
  if (!m) return undefined;
  return { start: cursor - m[2].length - 1, partial: m[2] };
}

const collator = new Intl.Collator('en');

/** Folders at least this big are remembered between Tab presses (a small one is read afresh). */
const CACHE_FROM_ENTRIES = 5000;

/** The last big directory read, kept while its mtime holds: Tab after Tab in it reads it once. */
let lastRead: { dir: string; mtimeMs: number; entries: Dirent[] } | undefined;

function readEntries(dir: string): Dirent[] {
  try {
    const mtimeMs = statSync(dir).mtimeMs;
    if (lastRead?.dir === dir && lastRead.mtimeMs === mtimeMs) return lastRead.entries;
    const entries = readdirSync(dir, { withFileTypes: true });
    lastRead = entries.length >= CACHE_FROM_ENTRIES ? { dir, mtimeMs, entries } : undefined;
    return entries;
  } catch {
    return [];
  }
}

function listEntries(cwd: string, partial: string): { name: string; dir: boolean }[] {
  const slash = partial.lastIndexOf('/');
  const dirPart = slash >= 0 ? partial.slice(0, slash + 1) : '';
  const base = slash >= 0 ? partial.slice(slash + 1) : partial;
  const dir = resolve(cwd, dirPart || '.');
  const matching = readEntries(dir)
    .filter((e) => e.name.startsWith(base) && (base.startsWith('.') || !e.name.startsWith('.')))
    .filter((e) => e.name !== 'node_modules' || base.startsWith('node'));
  // Only the candidates shown are sorted: one selection pass over a folder of 100,000 names.
  return selectSmallest(matching, (a, b) => collator.compare(a.name, b.name), MAX_CANDIDATES).map((e) => ({ name: dirPart + e.name, dir: e.isDirectory() }));
}

function completeMention(text: string, cursor: number, cwd: string): Completion | undefined {
  const at = mentionAt(text, cursor);
  if (!at) return undefined;
  const entries = listEntries(cwd, at.partial);
  if (entries.length === 0) return { candidates: [] };
  const replace = (value: string) => {
    const next = `${text.slice(0, at.start)}@${value}${text.slice(cursor)}`;
    return { text: next, cursor: at.start + 1 + value.length };
  };
  if (entries.length === 1) {
    const e = entries[0];
    const space = /^\s/.test(text.slice(cursor)) ? '' : ' ';
    return { ...replace(e.dir ? `${e.name}/` : `${e.name}${space}`), candidates: [] };
  }
  const prefix = commonPrefix(entries.map((e) => e.name));
  const candidates = entries.map((e) => `@${e.name}${e.dir ? '/' : ''}`);
  return prefix.length > at.partial.length ? { ...replace(prefix), candidates } : { candidates };
}

/** What Tab does at `cursor` in `text`; `extraCommands` are the session's (MCP prompts). */
export function complete(text: string, cursor: number, cwd: string, extraCommands: readonly SlashCommand[] = []): Completion {
  return completeSlash(text, extraCommands) ?? completeMention(text, cursor, cwd) ?? { candidates: [] };
}
