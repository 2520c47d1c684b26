/**
 * The budgeted document (the fallback when the parent request cannot carry the summary
 * instruction): the history flattened into one user message that fits
 * a token budget. Pure. Only the summariser's view is cut; the conversation itself is untouched.
 */
import type { Message } from '../core/message.js';
import { DOCUMENT_HEADER } from './prompts.js';
import { DOC_TOOL_RESULT_CHARS, DOC_USER_MESSAGE_CHARS } from './policy.js';

export interface DocumentInput {
  /** What is being summarised, oldest first (no system message, no previous summary). */
  messages: readonly Message[];
  /** The previous summary's text, when the history started with one. Never dropped. */
  previousSummary?: string;
  /** The compaction instruction (already holding focus and `compaction.instructions`). Never dropped. */
  instructions: string;
  /** Tokens the whole user message may take. */
  budget: number;
  /** Estimated tokens of a text. */
  count: (text: string) => number;
}

export interface BudgetedDocument {
  /** The one user message. */
  text: string;
  /** Whole messages dropped, oldest first, to fit. */
  omitted: number;
  /** Estimated tokens of `text`. */
  tokens: number;
}

/** `text` cut to `max` characters: head and tail kept, the cut stated in the middle. */
export function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.length - max;
  const head = Math.ceil(max * 0.6);
  return `${text.slice(0, head)}\n[… ${cut.toLocaleString('en-US')} characters cut …]\n${text.slice(text.length - (max - head))}`;
}

function render(m: Message): string {
  switch (m.role) {
    case 'user': {
      // Like a tool result's images, the user's are named, never sent: the summariser reads text.
      const images = (m.images ?? []).map((i) => `[image: ${i.media_type}, ${Math.round((i.data.length * 3) / 4 / 100) / 10} KB]`);
      return ['[user]', cutMiddle(m.content, DOC_USER_MESSAGE_CHARS), ...images].join('\n');
    }
    case 'assistant': {
      const calls = (m.tool_calls ?? []).map((c) => `[tool call ${c.name} ${cutMiddle(c.args, DOC_TOOL_RESULT_CHARS)}]`);
      return ['[assistant]', m.content, ...calls].filter((s) => s !== '').join('\n');
    }
    case 'tool':
      return `[tool result ${m.name}${m.is_error ? ' (error)' : ''}]\n${cutMiddle(m.content, DOC_TOOL_RESULT_CHARS)}`;
    case 'system':
      return `[system]\n${m.content}`;
  }
}

/**
 * Flatten, cut every tool result to 2,000 and every user message to 8,000 characters, then drop
 * whole messages, oldest first, until the text fits `budget`, stating how many were omitted. The
 * header, the instructions, the previous summary and the newest tool output are never dropped,
 * so the result can exceed `budget` only when those alone do.
 */
export function buildDocument(input: DocumentInput): BudgetedDocument {
  const blocks = input.messages.map(render);
  const tokens = blocks.map((b) => input.count(b) + 1);
  let newestTool = -1;
  for (let i = input.messages.length - 1; i >= 0; i--) {
    if (input.messages[i].role === 'tool') {
      newestTool = i;
      break;
    }
  }
  const previous = input.previousSummary ? `<previous-summary>\n${input.previousSummary}\n</previous-summary>` : '';
  const fixed = [DOCUMENT_HEADER, '<conversation>', '</conversation>', previous, input.instructions, '[99999 earlier messages omitted to fit the summariser window]'];
  const fixedTokens = fixed.reduce((sum, s) => sum + input.count(s) + 2, 0);

  let total = fixedTokens + tokens.reduce((a, b) => a + b, 0);
  const dropped = new Set<number>();
  for (let i = 0; i < blocks.length && total > input.budget; i++) {
    if (i === newestTool) continue;
    dropped.add(i);
    total -= tokens[i];
  }
  const kept = blocks.filter((_, i) => !dropped.has(i));
  const omittedLine = dropped.size > 0 ? [`[${dropped.size} earlier ${dropped.size === 1 ? 'message' : 'messages'} omitted to fit the summariser window]`] : [];
  const text = [DOCUMENT_HEADER, ['<conversation>', ...omittedLine, ...kept, '</conversation>'].join('\n\n'), previous, input.instructions].filter((s) => s !== '').join('\n\n');
  return { text, omitted: dropped.size, tokens: input.count(text) };
}
