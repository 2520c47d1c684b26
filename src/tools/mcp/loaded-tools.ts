import { mkdirSync, writeFileSync, renameSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file in the session's folder that lists the deferred MCP tools the model has loaded. */
export const LOADED_TOOLS_FILE = 'mcp-loaded-tools.json';

/**
 * The deferred MCP tools the model loaded with `mcp_tool_search`, in the order it loaded them.
 * Kept in the session's folder, so they stay loaded after a compaction (which never touches
 * them) and in a resumed session. Without a folder (a test) they live in memory only.
 */
export class LoadedTools {
  private readonly names: string[];
  /** Bumped on every change. */
  version = 0;

  constructor(private readonly dir?: string) {
    this.names = dir ? readNames(join(dir, LOADED_TOOLS_FILE)) : [];
  }

  has(name: string): boolean {
    return this.names.includes(name);
  }

  /** Every loaded name, oldest first. */
  list(): readonly string[] {
    return this.names;
  }

  /** Load `names` (the new ones are appended and written down). Returns how many were new. */
  add(names: readonly string[]): number {
    const fresh = names.filter((n, i) => !this.names.includes(n) && names.indexOf(n) === i);
    if (fresh.length === 0) return 0;
    this.names.push(...fresh);
    this.version++;
    if (this.dir) {
      mkdirSync(this.dir, { recursive: true });
      const file = join(this.dir, LOADED_TOOLS_FILE);
      writeFileSync(`${file}.tmp`, `${JSON.stringify({ tools: this.names })}\n`);
      renameSync(`${file}.tmp`, file);
    }
    return fresh.length;
  }
}

/** The names in `file`; none when it is absent or unreadable (loading them again is cheap). */
function readNames(file: string): string[] {
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as { tools?: unknown };
    return Array.isArray(data.tools) ? data.tools.filter((n): n is string => typeof n === 'string') : [];
  } catch {
    return [];
  }
}
