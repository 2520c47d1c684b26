import { Box } from 'ink';
import { Text } from './text.js';
import { memo } from 'react';
import { oneLine } from '../../core/one-line.js';
import { QUEUE_LIMIT } from '../state/ui-state.js';

/** Inputs waiting for the agent, shown above the prompt in the order they will run. */
export const QueueView = memo(function QueueView({ queue }: { queue: readonly string[] }) {
  if (queue.length === 0) return null;
  return (
    <Box flexDirection="column" marginTop={1}>
      {queue.map((text, i) => (
        <Text key={i} dimColor>
          {`↳ queued ${i + 1}/${QUEUE_LIMIT}: ${oneLine(text, 100)}`}
        </Text>
      ))}
    </Box>
  );
});
