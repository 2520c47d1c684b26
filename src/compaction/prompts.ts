/**
 * Compaction prompts. One shared guidance feeds every builder, so manual and automatic summaries,
 * forked or budgeted, first or merged, have the same shape and rules; each builder adds only what
 * differs.
 */

/** Where the model finds the conversation it summarises. */
type Source = 'history' | 'document';

function guidance(source: Source): string {
  const where = source === 'history' ? 'the conversation history above' : 'the conversation inside <conversation>';
  return `This is a context compaction. Your reply will REPLACE ${where}: after it, the conversation continues from your summary alone, so write it for an engineer (or agent) who has seen none of the history.

Rules:
- Do not use tools. Do not call any tool. Work only from ${where}.
- Keep exact file paths, commands, identifiers, function and type names, versions, and error text. Quote them; do not paraphrase them.
- Keep every artifact handle (artifact#N) next to what it holds: the recall tool can read it again.
- Do not refer to the discarded history ("as discussed above", "the earlier message"): everything needed must be in the summary itself.
- Prefer dense facts over narration.

Use these sections as a baseline. Add sections or detail when the conversation calls for them:

## Goal
The user's objectives.

## Key Instructions
Important user constraints, preferences and decisions.

## Discoveries
Relevant facts about the codebase and the requirements.

## Accomplished
Completed work, remaining work, the active progress and the next action.

## Relevant Files
Relevant files, commands, errors and tool results.`;
}

/** What a compaction prompt is built from besides its mode. */
export interface PromptOptions {
  /** The user's `/compact FOCUS` text. */
  focus?: string;
  /** `compaction.instructions`: added to every compaction prompt. */
  instructions?: string;
  /** The history starts with a previous summary: merge it instead of summarising it. */
  update?: boolean;
  /** The newest messages stay verbatim after the summary; this names where they start. */
  tailNote?: string;
  /** Where the conversation is: the request's own history (fork) or a document (fallback). */
  source?: Source;
}

const UPDATE_HISTORY = `The conversation starts with a previous compacted summary (the first user message, inside <compacted_context>). Do not summarise it as if it were narrative: MERGE it with everything that happened after it into ONE updated summary. Keep every fact of the previous summary that still holds (paths, commands, decisions, open work), update what changed, drop only what is now obsolete, and add the new work.`;
const UPDATE_DOCUMENT = `<previous-summary> holds the summary written at the last compaction; <conversation> holds what happened since. Do not summarise the previous summary as if it were narrative: MERGE the two into ONE updated summary. Keep every fact of the previous summary that still holds (paths, commands, decisions, open work), update what changed, drop only what is now obsolete, and add the new work.`;

function extras(opts: PromptOptions): string {
  const parts: string[] = [];
  if (opts.update) parts.push(opts.source === 'document' ? UPDATE_DOCUMENT : UPDATE_HISTORY);
  if (opts.tailNote) parts.push(opts.tailNote);
  const focus = opts.focus?.trim();
  if (focus) parts.push(`The user asked the summary to especially keep the following. Give it priority and keep its details:\n${focus}`);
  const instructions = opts.instructions?.trim();
  if (instructions) parts.push(`Additional instructions for every compaction:\n${instructions}`);
  return parts.map((p) => `\n\n${p}`).join('');
}

/** The manual `/compact [focus]` instruction. */
export function buildCompactionPrompt(focusOrOptions?: string | PromptOptions): string {
  const opts: PromptOptions = typeof focusOrOptions === 'string' || focusOrOptions === undefined ? { focus: focusOrOptions } : focusOrOptions;
  return `${guidance(opts.source ?? 'history')}\n\nSummarize the whole conversation, including the latest user request.${extras(opts)}`;
}

/** The private automatic-compaction instruction, used inside a running tool loop. */
export function buildAutoCompactionPrompt(opts: PromptOptions = {}): string {
  return `${guidance(opts.source ?? 'history')}

This compaction runs automatically in the middle of an active task that will continue right after it. Also:
- Preserve the active loop's progress: what has been done in this task so far, what is in flight, and the exact next step.
- Preserve meaningful tool results (file contents that matter, command output, test failures, error messages) in enough detail to continue without re-running everything.
- Omit the latest user message from the summary: it is kept verbatim separately and stays authoritative.
- Reply with the summary only: no preamble, no closing remarks.${extras(opts)}`;
}

/**
 * The system prompt of the budgeted-document request: the model is a summariser here, not the
 * coding agent, so it summarises the document instead of resuming the unfinished work.
 */
export const SUMMARISER_SYSTEM_PROMPT = `You are a context summarization assistant. You receive a coding agent's conversation as a document inside <conversation>…</conversation> and write the summary that will replace it. You never continue the work, never answer the user's requests yourself and never call tools: you only summarise.`;

/** The first line of a budgeted document, so the request says what it is before the long part. */
export const DOCUMENT_HEADER = 'This is a context compaction: the conversation to summarise follows as a document; the instructions come after it.';
