/**
 * Compaction prompts. One shared guidance feeds both builders, so manual and automatic summaries
 * have the same shape and rules; each builder adds only what differs.
 */

export const SUMMARY_SECTIONS = ['## Goal', '## Key Instructions', '## Discoveries', '## Accomplished', '## Relevant Files'] as const;

const COMPACTION_GUIDANCE = `This is a context compaction. Your reply will REPLACE the conversation history above: after it, the conversation continues from your summary alone, so write it for an engineer (or agent) who has seen none of the history.

Rules:
- Do not use tools. Do not call any tool. Work only from the existing conversation history above.
- Keep exact file paths, commands, identifiers, function and type names, versions, and error text. Quote them; do not paraphrase them.
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

/** The manual `/compact [focus]` instruction, sent as the final user message. */
export function buildCompactionPrompt(focus?: string): string {
  const trimmed = focus?.trim();
  const focusPart = trimmed
    ? `\n\nThe user asked the summary to especially keep the following. Give it priority and keep its details:\n${trimmed}`
    : '';
  return `${COMPACTION_GUIDANCE}\n\nSummarize the whole conversation, including the latest user request.${focusPart}`;
}

/** The private automatic-compaction instruction, sent as the final user message inside a tool loop. */
export function buildAutoCompactionPrompt(): string {
  return `${COMPACTION_GUIDANCE}

This compaction runs automatically in the middle of an active task that will continue right after it. Also:
- Preserve the active loop's progress: what has been done in this task so far, what is in flight, and the exact next step.
- Preserve meaningful tool results (file contents that matter, command output, test failures, error messages) in enough detail to continue without re-running everything.
- Omit the latest user message from the summary: it is kept verbatim separately and stays authoritative.
- Reply with the summary only: no preamble, no closing remarks.`;
}
