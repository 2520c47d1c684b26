import { Box, Text } from 'ink';
import { memo } from 'react';
import { ruleFor } from '../../tools/permissions/index.js';
import { promptDiffLines } from '../live-bound.js';
import type { PermissionView } from '../state/ui-state.js';
import { color } from '../theme.js';
import { DiffView } from './diff-view.js';

/** Diff lines a permission prompt shows at most. */
export const PROMPT_DIFF_LINES = 40;
/** Below a diff cut to fit the terminal: the whole diff was written to the transcript above. */
export const PROMPT_DIFF_NOTE = '(the whole diff is printed above)';
/** Below a diff cut to fit the terminal, when it could not be written above. */
export const PROMPT_DIFF_CUT = '(not shown: the terminal is too short)';

/** Diff lines the prompt shows in a terminal of `rows` × `columns` (all of it fits on screen). */
export function promptDiffBudget(view: PermissionView, rows: number, columns: number): number {
  return promptDiffLines({ rows, columns, summary: view.request.summary, options: permissionOptions(view), cap: PROMPT_DIFF_LINES });
}

export function permissionOptions(view: PermissionView): string[] {
  const rule = ruleFor(view.request);
  const scope = view.request.tool === 'bash' ? `\`${rule.slice(5, -1)}\`` : rule;
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
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={color('warning')} paddingX={1} marginTop={1}>
      <Text bold>{`Allow ${request.tool}?`}</Text>
      <Text>{request.summary}</Text>
      {request.tool === 'bash' && request.detail ? (
        <Box paddingLeft={2} marginTop={1}>
          <Text color={color('code')}>{request.detail}</Text>
        </Box>
      ) : null}
      {diff ? (
        <Box paddingLeft={2} marginTop={1} flexDirection="column">
          <DiffView
            diff={diff}
            maxLines={rows && columns ? promptDiffBudget(view, rows, columns) : PROMPT_DIFF_LINES}
            note={view.fullDiffAbove ? PROMPT_DIFF_NOTE : PROMPT_DIFF_CUT}
          />
        </Box>
      ) : null}
      <Box flexDirection="column" marginTop={1}>
        {options.map((label, i) => (
          <Text key={i} color={i === view.selected ? color('accent') : undefined} bold={i === view.selected}>
            {`${i === view.selected ? '❯' : ' '} ${i + 1}. ${label}`}
          </Text>
        ))}
      </Box>
      <Text dimColor>enter confirm · 1/2/3 or y/a/n · esc deny</Text>
    </Box>
  );
});
