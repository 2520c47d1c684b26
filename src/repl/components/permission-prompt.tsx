import { Box, Text } from 'ink';
import { memo } from 'react';
import { ruleFor } from '../../tools/permissions/index.js';
import type { PermissionView } from '../state/ui-state.js';
import { color } from '../theme.js';
import { DiffView } from './diff-view.js';

/** Diff lines a permission prompt shows at most. */
export const PROMPT_DIFF_LINES = 40;

export function permissionOptions(view: PermissionView): string[] {
  const rule = ruleFor(view.request);
  const scope = view.request.tool === 'bash' ? `\`${rule.slice(5, -1)}\`` : rule;
  return ['Yes', `Yes, and allow ${scope} for the rest of this session`, 'No, tell the agent what to do instead'];
}

/** Allow once / allow for this session / deny. Edits and writes show their diff; bash its command. */
export const PermissionPrompt = memo(function PermissionPrompt({ view }: { view: PermissionView }) {
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
          <DiffView diff={diff} maxLines={PROMPT_DIFF_LINES} expandHint={false} />
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
