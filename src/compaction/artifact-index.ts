/**
 * Artifact handles and the artifact index. Pure. A pruned tool output becomes a one-line handle;
 * every handle (and every stored output) that leaves the history with a summary is listed in an
 * index appended to that summary, so the model can still `recall` it afterwards.
 */
import type { Message } from '../core/message.js';
import { MAX_INDEXED_ARTIFACTS } from './policy.js';

const ARGS_CHARS = 160;
// \u2014 is the em dash of the handle (HANDLE_PREFIX): the bundle is kept ASCII (scripts/build.mjs).
const HANDLE_RE = /^\[artifact#(\d+)\] (.*?) \u2014 output removed/;
const INDEX_BLOCK_RE = /\n*<artifact_index>[\s\S]*?<\/artifact_index>\n*/g;
const INDEX_LINE_RE = /^- artifact#(\d+)(?: (.*))?$/;
const INLINE_RE = /artifact#(\d+)/g;

const fmt = (n: number) => n.toLocaleString('en-US');

/** `read_file {"path":"a.ts"} · 6,012 chars, 150 lines`: what an artifact is, on one line. */
export function describeOutput(tool: string, args: string, content: string): string {
  const flat = args.replace(/\s+/g, ' ').trim();
  const shown = flat.length > ARGS_CHARS ? `${flat.slice(0, ARGS_CHARS - 1)}…` : flat;
  const lines = content === '' ? 0 : content.split('\n').length;
  return `${tool}${shown ? ` ${shown}` : ''} · ${fmt(content.length)} chars, ${fmt(lines)} ${lines === 1 ? 'line' : 'lines'}`;
}

/** The text that replaces a pruned tool output. */
export function handleText(artifact: number, description: string): string {
  return `[artifact#${artifact}] ${description} — output removed to free context; call recall with artifact "artifact#${artifact}" (optionally start_line/end_line) to read it again.`;
}

export function isHandle(content: string): boolean {
  return HANDLE_RE.test(content);
}

/** The summary without any artifact index block (a model may copy one from the history). */
export function stripIndex(summary: string): string {
  return summary.replace(INDEX_BLOCK_RE, '\n').trim();
}

/** Artifact number → its one-line description (or '' when only the handle is known). */
export type ArtifactRefs = Map<number, string>;

/** The arguments of every tool call in `messages`, by call id. */
function callArgs(messages: readonly Message[]): Map<string, string> {
  const args = new Map<string, string>();
  for (const m of messages) if (m.role === 'assistant') for (const c of m.tool_calls ?? []) args.set(c.id, c.args);
  return args;
}

/**
 * Every artifact that leaves the history with `messages`: stored tool outputs (stamped
 * `artifact_ref`), pruned handles, the index of a previous summary, and handles written inline.
 */
export function collectArtifactRefs(messages: readonly Message[], refs: ArtifactRefs = new Map()): ArtifactRefs {
  const args = callArgs(messages);
  const add = (n: number, description: string) => {
    if (!refs.get(n)) refs.set(n, description);
  };
  for (const m of messages) {
    if (m.role === 'tool' && m.artifact_ref) {
      const handle = HANDLE_RE.exec(m.content);
      add(m.artifact_ref, handle ? handle[2] : describeOutput(m.name, args.get(m.tool_call_id) ?? '', m.content));
      continue;
    }
    for (const block of m.content.match(/<artifact_index>[\s\S]*?<\/artifact_index>/g) ?? []) {
      for (const line of block.split('\n')) {
        const hit = INDEX_LINE_RE.exec(line.trim());
        if (hit) add(Number(hit[1]), hit[2] ?? '');
      }
    }
    for (const hit of m.content.matchAll(INLINE_RE)) add(Number(hit[1]), '');
  }
  return refs;
}

/** The index block appended to a summary: the newest {@link MAX_INDEXED_ARTIFACTS}, oldest first. */
export function artifactIndex(refs: ArtifactRefs): string {
  if (refs.size === 0) return '';
  const kept = [...refs.keys()]
    .sort((a, b) => b - a)
    .slice(0, MAX_INDEXED_ARTIFACTS)
    .sort((a, b) => a - b);
  const lines = kept.map((n) => `- artifact#${n}${refs.get(n) ? ` ${refs.get(n)}` : ''}`);
  return `<artifact_index>\nTool outputs from before this summary, stored in full. Read one again with the recall tool:\n${lines.join('\n')}\n</artifact_index>`;
}
