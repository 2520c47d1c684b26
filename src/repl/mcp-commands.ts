/**
 * The REPL's MCP surface: `/mcp` (server status), `/mcp__<server>__<prompt> [args]` (a server's
 * prompt sent as the message) and `@<server>:<uri>` (a server's resource attached to the message).
 */
import type { McpManager } from '../tools/mcp/manager.js';
import { ATTACHMENT_MAX_BYTES } from './input/attachment-limit.js';
import type { SlashCommand } from './slash-commands.js';

/** The session's prompt commands, for Tab completion. */
export function mcpSlashCommands(mcp: McpManager | undefined): SlashCommand[] {
  return (mcp?.promptCommands() ?? []).map((p) => ({
    name: p.command,
    aliases: [],
    args: (p.prompt.arguments ?? []).length ? '[args]' : undefined,
    description: p.prompt.description ?? `MCP prompt ${p.prompt.name}`,
  }));
}

/** Lines of `/mcp`: one per server (transport, state, tools, error), then the prompt commands. */
export function mcpStatusLines(mcp: McpManager | undefined): string[] {
  if (!mcp) return ['No MCP servers configured. Add one with `keen mcp add NAME -- COMMAND [ARGS...]` (see docs/mcp.md).'];
  const rows = mcp.status().map((s) => [s.name, s.transport, s.state, `${s.tools} tools`, s.error ?? '']);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i].length)));
  const lines = rows.map((r) =>
    r
      .map((cell, i) => (i < 4 ? cell.padEnd(widths[i]) : cell))
      .join('  ')
      .trimEnd(),
  );
  const prompts = mcp.promptCommands();
  if (prompts.length) {
    lines.push('', 'Prompts:');
    for (const p of prompts) {
      const args = (p.prompt.arguments ?? []).map((a) => (a.required ? `${a.name}=…` : `[${a.name}=…]`)).join(' ');
      lines.push(`/${p.command}${args ? ` ${args}` : ''}${p.prompt.description ? `  ${p.prompt.description}` : ''}`);
    }
  }
  return lines;
}

/**
 * The text of a prompt command (cut at `ATTACHMENT_MAX_BYTES` characters, and then said so), or
 * an error line. Arguments are `name=value` words; text without `=` goes to the prompt's first
 * argument.
 */
export async function mcpPromptMessage(mcp: McpManager | undefined, command: string, argText: string): Promise<{ text: string } | { error: string } | undefined> {
  const found = mcp?.promptCommands().find((p) => p.command === command);
  if (!mcp || !found) return undefined;
  const declared = found.prompt.arguments ?? [];
  const args: Record<string, string> = {};
  const text = argText.trim();
  if (text) {
    const pairs = [...text.matchAll(/(\w[\w-]*)=("([^"]*)"|\S+)/g)];
    if (pairs.length) for (const m of pairs) args[m[1]] = m[3] ?? m[2];
    else if (declared[0]) args[declared[0].name] = text;
  }
  const missing = declared.filter((a) => a.required && !(a.name in args)).map((a) => a.name);
  if (missing.length) return { error: `/${command} needs ${missing.map((m) => `${m}=…`).join(' ')}` };
  try {
    const result = await mcp.getPrompt(found.server, found.prompt.name, args);
    const parts = result.messages.map((m) => {
      const c = m.content;
      if (c.type === 'text') return c.text;
      if (c.type === 'resource' && 'text' in c.resource && typeof c.resource.text === 'string') return c.resource.text;
      return `[${c.type} content from the prompt — not shown]`;
    });
    const full = parts.join('\n\n');
    // Capped like a file mention: the message goes with every later request of the session.
    if (full.length <= ATTACHMENT_MAX_BYTES) return { text: full };
    return {
      text: `${full.slice(0, ATTACHMENT_MAX_BYTES)}\n[truncated: the prompt has ${full.length.toLocaleString('en-US')} characters; only the first ${ATTACHMENT_MAX_BYTES.toLocaleString('en-US')} are sent]`,
    };
  } catch (err) {
    return { error: `/${command} failed: ${(err as Error).message}` };
  }
}

const RESOURCE_MENTION = /(^|\s)@([A-Za-z0-9_-]+):(\S+)/g;

/**
 * Attach the `@server:uri` resources `text` mentions (servers known to `mcp` only; anything else is
 * left as typed). Text contents are attached in `<attached_resource>` blocks, each cut at
 * `ATTACHMENT_MAX_BYTES` characters (and then said so), as a file mention is.
 */
export async function expandMcpResources(text: string, mcp: McpManager | undefined): Promise<{ text: string; attached: string[]; problems: string[] }> {
  const out = { text, attached: [] as string[], problems: [] as string[] };
  if (!mcp) return out;
  const servers = new Set(mcp.status().map((s) => s.name));
  const blocks: string[] = [];
  for (const m of text.matchAll(RESOURCE_MENTION)) {
    const [server, uri] = [m[2], m[3].replace(/[.,;!?)]+$/, '')];
    if (!servers.has(server)) continue;
    try {
      const result = await mcp.readResource(server, uri);
      const full = result.contents.map((c) => ('text' in c && typeof c.text === 'string' ? c.text : `[binary ${c.mimeType ?? 'content'} — not attached]`)).join('\n');
      // Capped like a file mention: the message goes with every later request of the session.
      const body =
        full.length > ATTACHMENT_MAX_BYTES
          ? `${full.slice(0, ATTACHMENT_MAX_BYTES)}\n[truncated: the resource has ${full.length.toLocaleString('en-US')} characters; only the first ${ATTACHMENT_MAX_BYTES.toLocaleString('en-US')} are attached]`
          : full.replace(/\n$/, '');
      blocks.push(`<attached_resource server="${server}" uri="${uri}">\n${body}\n</attached_resource>`);
      out.attached.push(`${server}:${uri}`);
    } catch (err) {
      out.problems.push(`@${server}:${uri} could not be read: ${(err as Error).message}`);
    }
  }
  if (blocks.length) out.text = `${text}\n\n${blocks.join('\n\n')}`;
  return out;
}
