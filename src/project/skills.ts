import { readdirSync, type Dirent } from 'node:fs';
import { join, dirname } from 'node:path';
import { asLookupDir, lookupDirs, searchable, userHome, type LookupDir } from './definition-dirs.js';
import type { WalkFrom } from './repo-root.js';
import { parseFrontMatter, stringField } from './front-matter.js';
import { readCapped } from './read-capped.js';

/** A skill's SKILL.md is read up to this size; the rest is cut with a note. */
export const SKILL_FILE_CAP = 32 * 1024;
/** Descriptions in the system prompt are cut to this many characters. */
export const SKILL_DESCRIPTION_MAX = 300;
/** At most this many skills are listed (the first found win). */
export const SKILLS_MAX = 100;
/** Files of a skill's folder listed by the `skill` tool at most. */
export const SKILL_FILES_MAX = 50;

export interface Skill {
  name: string;
  description: string;
  /** The folder holding SKILL.md. */
  dir: string;
  file: string;
  /** The real folder SKILL.md's real path must stay inside (the project root, the config folder). */
  within?: string;
}

export interface LoadedSkill extends Skill {
  body: string;
  truncated: boolean;
  /** Other files of the folder, relative to it (at most {@link SKILL_FILES_MAX}). */
  files: string[];
}

const NAME = /^[A-Za-z0-9][\w.-]*$/;

/** Skill folders, nearest first: project `.agents/skills`, `.keen/skills`, `.claude/skills`, then the user's. */
export function skillDirs(cwd: WalkFrom, home: string, env: NodeJS.ProcessEnv): LookupDir[] {
  return lookupDirs(cwd, {
    project: ['.agents/skills', '.keen/skills', '.claude/skills'],
    user: [
      { dir: join(home, 'skills'), config: home },
      { dir: join(userHome(env), '.agents', 'skills'), config: join(userHome(env), '.agents') },
    ],
  });
}

/**
 * Every skill found in `dirs` (each a folder of skill folders), first name wins. A SKILL.md whose
 * front matter does not parse, or lacks `name`/`description`, that leads out of its folder's
 * bound or is another account's (file or folder) is skipped with one warning line naming the
 * file; the others still load.
 */
export function discoverSkills(dirs: readonly (string | LookupDir)[]): { skills: Skill[]; warnings: string[] } {
  const skills: Skill[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  for (const d of dirs) {
    const at = asLookupDir(d);
    if (!at || !searchable(at.dir, warnings)) continue;
    const { dir: root, within } = at;
    for (const entry of listDirs(root)) {
      if (!searchable(join(root, entry), warnings)) continue;
      const file = join(root, entry, 'SKILL.md');
      const text = readCapped(file, SKILL_FILE_CAP, { within, warnings, what: 'skill' });
      if (text === undefined) continue;
      let parsed: ReturnType<typeof parseFrontMatter>;
      try {
        parsed = parseFrontMatter(text.content);
      } catch (err) {
        warnings.push(`skipped skill ${file}: ${(err as Error).message}`);
        continue;
      }
      const name = stringField(parsed.data, 'name') ?? entry;
      const description = stringField(parsed.data, 'description');
      if (!description) {
        warnings.push(`skipped skill ${file}: front matter needs a description`);
        continue;
      }
      if (!NAME.test(name)) {
        warnings.push(`skipped skill ${file}: name "${name}" may hold only letters, digits, - _ and .`);
        continue;
      }
      if (seen.has(name) || skills.length >= SKILLS_MAX) continue;
      seen.add(name);
      skills.push({ name, description: oneLine(description, SKILL_DESCRIPTION_MAX), dir: dirname(file), file, within });
    }
  }
  return { skills, warnings };
}

/** The full skill: body (front matter stripped, capped) and the folder's other files. */
export function loadSkill(skill: Skill): LoadedSkill {
  const within = skill.within ?? asLookupDir(skill.dir)?.within;
  const text = within ? readCapped(skill.file, SKILL_FILE_CAP, { within }) : undefined;
  if (!text) throw new Error(`skill ${skill.name}: ${skill.file} can no longer be read`);
  const { body } = parseFrontMatter(text.content);
  return { ...skill, body: body.trim(), truncated: text.truncated, files: listFiles(skill.dir, SKILL_FILES_MAX).filter((f) => f !== 'SKILL.md') };
}

/** What the `skill` tool and a `/<skill>` turn hand the model. */
export function skillText(skill: LoadedSkill, args?: string): string {
  const lines = [`<skill name="${skill.name}" folder="${skill.dir}">`, skill.body];
  if (skill.truncated) lines.push(`[SKILL.md truncated to ${SKILL_FILE_CAP} bytes]`);
  if (skill.files.length) lines.push('', `Files in the skill's folder (read them with read_file when the instructions refer to them):`, ...skill.files.map((f) => `- ${f}`));
  lines.push('</skill>');
  if (args !== undefined) lines.push('', args.trim() ? `Arguments: ${args.trim()}` : 'No arguments were given.');
  return lines.join('\n');
}

export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function listDirs(root: string): string[] {
  try {
    return readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory() || e.isSymbolicLink())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** Regular files below `dir`, relative, breadth by name, at most `max`. Dot folders are skipped. */
function listFiles(dir: string, max: number): string[] {
  const out: string[] = [];
  const walk = (rel: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (out.length >= max) return;
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isFile()) out.push(child);
      else if (e.isDirectory() && !e.name.startsWith('.') && depth < 3) walk(child, depth + 1);
    }
  };
  walk('', 0);
  return out;
}
