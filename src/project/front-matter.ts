import { createRequire } from 'node:module';

type Yaml = typeof import('yaml');
let yaml: Yaml | undefined;

/**
 * The YAML parser, loaded on the first front matter: most projects have no skills, agents or
 * commands, and yaml is the biggest package on the session path (kept out of the bundle by
 * scripts/build.mjs, so a run that never parses front matter never loads it).
 */
function loadYaml(): Yaml {
  yaml ??= createRequire(import.meta.url)('yaml') as Yaml;
  return yaml;
}

export interface FrontMatter {
  /** The YAML mapping between the `---` fences ({} when the file has none). */
  data: Record<string, unknown>;
  /** The Markdown after the closing fence (the whole text when there is no front matter). */
  body: string;
}

const FENCE = /^---[ \t]*\r?\n([\s\S]*?)\r?\n?^---[ \t]*(?:\r?\n|$)/m;

/**
 * Splits `text` into YAML front matter and a Markdown body (the SKILL.md / agent / command
 * convention). Throws an Error with a short reason when the fences are there but the YAML does
 * not parse or is not a mapping; text without a leading `---` line has no front matter.
 */
export function parseFrontMatter(text: string): FrontMatter {
  const src = text.replace(/^\uFEFF/, '');
  if (!/^---[ \t]*\r?\n/.test(src)) return { data: {}, body: src };
  const m = FENCE.exec(src);
  if (!m || m.index !== 0) throw new Error('front matter has no closing ---');
  let data: unknown;
  try {
    data = loadYaml().parse(m[1]) ?? {};
  } catch (err) {
    throw new Error(`front matter is not valid YAML (${firstLine(err)})`);
  }
  if (typeof data !== 'object' || Array.isArray(data)) throw new Error('front matter is not a YAML mapping');
  return { data: data as Record<string, unknown>, body: src.slice(m[0].length) };
}

/** A string field of front matter, trimmed; undefined when absent or not a string. */
export function stringField(data: Record<string, unknown>, key: string): string | undefined {
  const v = data[key];
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0].trim();
}
