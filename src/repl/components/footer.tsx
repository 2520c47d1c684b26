import { Box } from 'ink';
import { Text } from './text.js';
import { memo } from 'react';
import type { SessionInfo } from '../state/ui-state.js';
import { color } from '../theme.js';

/** Context use (of the window) above which the footer suggests /compact. */
export const COMPACT_HINT_PERCENT = 70;

/**
 * The session's context measure as a share of the window: the figure `/context` and `/usage` show
 * (src/agent/context-report.ts), rounded. Before, the footer divided by the input budget and
 * `/context` by the window, so a small window showed 278% against 135.6%.
 */
export function contextPercent(info: SessionInfo): number {
  return info.window > 0 ? Math.min(999, Math.round((info.contextTokens / info.window) * 100)) : 0;
}

/** provider/model · context % of the window (· the /compact hint past 70%) · session id. */
export const Footer = memo(function Footer({ session, exitArmed }: { session?: SessionInfo; exitArmed: boolean }) {
  if (exitArmed) {
    return (
      <Box paddingX={1}>
        <Text color={color('warning')}>Press Ctrl+C again to exit</Text>
      </Box>
    );
  }
  if (!session) {
    return (
      <Box paddingX={1}>
        <Text dimColor>starting…</Text>
      </Box>
    );
  }
  const pct = contextPercent(session);
  const high = pct >= COMPACT_HINT_PERCENT;
  return (
    <Box paddingX={1}>
      <Text dimColor={!high}>
        {session.mode === 'plan' || session.permissionMode === 'plan' ? <Text color={color('warning')}>{'plan mode · '}</Text> : null}
        {`${session.provider}/${session.model} · `}
        <Text color={high ? color('warning') : undefined}>{`${pct}% context`}</Text>
        {high ? <Text color={color('warning')}>{' · /compact to free context'}</Text> : null}
        {` · session ${session.sessionId}`}
        {session.permissionMode && session.permissionMode !== 'default' && session.permissionMode !== 'plan' ? (
          <Text color={color('warning')}>{` · ${session.permissionMode}`}</Text>
        ) : null}
      </Text>
    </Box>
  );
});
