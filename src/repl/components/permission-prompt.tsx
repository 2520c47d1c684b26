import { Box } from 'ink';
import { Text } from './text.js';
import { memo } from 'react';
// Not the permissions index: the engine behind it (rules, glob matching) loads with the session.
import { ruleFor } from '../../tools/permissions/session-rule.js';
import { PROMPT_HINT, promptDetailLines } from '../live-bound.js';
import type { PermissionView } from '../state/ui-state.js';
import { color } from '../theme.js';
import { terminalText } from '../../security/terminal-text.js';
import { DiffView } from './diff-view.js';

/** Diff lines a permission prompt shows at most. */
export const PROMPT_DIFF_LINES = 40;
/** Below a diff cut to fit the terminal: the whole diff was written to the transcript above. */
export const PROMPT_DIFF_NOTE = '(the whole diff is printed above)';
/** Below a command cut to fit the terminal: the whole command was written to the transcript above. */
export const PROMPT_COMMAND_NOTE = '(the whole command is printed above)';
/** Below a detail cut to fit the terminal, when it could not be written above. */
export const PROMPT_DIFF_CUT = '(not shown: the terminal is too short)';

/** The lines of what the prompt shows under its summary: an edit's diff, a bash command (none: undefined). */
export function promptDetail(view: PermissionView): string[] | undefined {
  return view.request.detail ? view.request.detail.replace(/\n$/, '').split('\n') : undefined;
}

/** Detail lines the prompt shows in a terminal of `rows` × `columns` (all of it fits on screen). */
export function promptDetailBudget(view: PermissionView, rows: number, columns: number): number {
  const lines = promptDetail(view) ?? [];
  return promptDetailLines({ rows, columns, summary: view.request.summary, options: permissionOptions(view), lines, cap: PROMPT_DIFF_LINES });
}

/** A command as the second answer names it: its first line, at most 60 characters as drawn (escapes counted). */
function commandLabel(command: string): string {
  const lines = command.split('\n');
  const first = terminalText(lines[0]);
  return first.length > 60 || lines.length > 1 ? `${first.slice(0, 60).trimEnd()}…` : first;
}

export function permissionOptions(view: PermissionView): string[] {
  const rule = ruleFor(view.request);
  const scope = view.request.tool === 'bash' ? `\`${commandLabel(rule.slice(5, -1))}\`` : rule;
  return ['Yes', `Yes, and allow ${scope} for the rest of this session`, 'No, tell the agent what to do instead'];
}

/**
 * Allow once / allow for this session / deny. Edits and writes show their diff; bash its command.
 * With the terminal's `rows` and `columns`, the diff is cut so the question and answers stay on
 * screen (the broker writes a diff cut this way to the transcript first: permission-broker.ts).
 */
export const PermissionPrompt = memo(function PermissionPrompt({ view, rows, columns }: { view: PermissionView; rows?: number; columns?: number }) {
  const { request } = view;
  const options = permissionOptions(view);
  const diff = request.detail && request.tool !== 'bash' ? request.detail : undefined;
  const budget = rows && columns ? promptDetailBudget(view, rows, columns) : PROMPT_DIFF_LINES;
  const command = request.tool === 'bash' ? promptDetail(view) : undefined;
  const note = view.fullDiffAbove ? (command ? PROMPT_COMMAND_NOTE : PROMPT_DIFF_NOTE) : PROMPT_DIFF_CUT;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={color('warning')} paddingX={1} marginTop={1}>
      <Text bold>{`Allow ${request.tool}?`}</Text>
      <Text>{request.summary}</Text>
      {command ? (
        <Box paddingLeft={2} marginTop={1} flexDirection="column">
          {budget > 0 ? <Text color={color('code')}>{command.slice(0, budget).join('\n')}</Text> : null}
          {command.length > budget ? <Text dimColor>{`… +${command.length - budget} lines ${note}`}</Text> : null}
        </Box>
      ) : null}
      {diff ? (
        <Box paddingLeft={2} marginTop={1} flexDirection="column">
          <DiffView diff={diff} maxLines={budget} note={note} />
        </Box>
      ) : null}
      <Box flexDirection="column" marginTop={1}>
        {options.map((label, i) => (
          <Text key={i} color={i === view.selected ? color('accent') : undefined} bold={i === view.selected}>
            {`${i === view.selected ? '❯' : ' '} ${i + 1}. ${label}`}
          </Text>
        ))}
      </Box>
      <Text dimColor>{PROMPT_HINT}</Text>
    </Box>
  );
});
