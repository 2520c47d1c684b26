import { join } from 'node:path';
import { lookupDirs, markdownFiles, type LookupDir } from './definition-dirs.js';
import type { WalkFrom } from './repo-root.js';
import { parseFrontMatter, stringField } from './front-matter.js';
import { readCapped } from './read-capped.js';
import { oneLine } from './skills.js';

/** An agent file is read up to this size (its body is the child's system prompt). */
export const AGENT_FILE_CAP = 32 * 1024;

/** A subagent definition (`.keen/agents/<name>.md`, the Claude Code format). */
export interface AgentDefinition {
  name: string;
  description: string;
  /** Tool names the child gets; undefined = every tool but `task`. */
  tools?: string[];
  /** A model name (config or catalog); undefined = the parent's. */
  model?: string;
  /** The child's system prompt. */
  prompt: string;
  file: string;
}

const NAME = /^[A-Za-z0-9][\w.-]*$/;

export function agentDirs(cwd: WalkFrom, home: string): LookupDir[] {
  return lookupDirs(cwd, { project: ['.keen/agents', '.claude/agents'], user: [{ dir: join(home, 'agents'), config: home }] });
}

/**
 * Every agent definition of `dirs`, first name wins. `tools` may be a YAML list or a
 * comma-separated string (Claude Code writes both); `model: inherit` means the parent's. A file
 * that does not parse or lacks `description`, that leads out of its folder's bound or is another
 * account's is skipped with one warning naming it.
 */
export function discoverAgents(dirs: readonly (string | LookupDir)[]): { agents: AgentDefinition[]; warnings: string[] } {
  const agents: AgentDefinition[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  for (const { entry, file, within } of markdownFiles(dirs, warnings)) {
    const text = readCapped(file, AGENT_FILE_CAP, { within, warnings, what: 'agent' });
    if (!text) continue;
    let parsed: ReturnType<typeof parseFrontMatter>;
    try {
      parsed = parseFrontMatter(text.content);
    } catch (err) {
      warnings.push(`skipped agent ${file}: ${(err as Error).message}`);
      continue;
    }
    const name = stringField(parsed.data, 'name') ?? entry.slice(0, -3);
    const description = stringField(parsed.data, 'description');
    if (!description || !NAME.test(name)) {
      warnings.push(`skipped agent ${file}: front matter needs a name (letters, digits, - _ .) and a description`);
      continue;
    }
    if (seen.has(name)) continue;
    seen.add(name);
    const model = stringField(parsed.data, 'model');
    agents.push({
      name,
      description: oneLine(description, 300),
      tools: toolList(parsed.data.tools),
      model: model && model !== 'inherit' ? model : undefined,
      prompt: parsed.body.trim(),
      file,
    });
  }
  return { agents, warnings };
}

function toolList(value: unknown): string[] | undefined {
  if (Array.isArray(value))
    return value
      .filter((v): v is string => typeof v === 'string')
      .map((v) => v.trim())
      .filter(Boolean);
  if (typeof value === 'string' && value.trim())
    return value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
  return undefined;
}
