import { Box } from 'ink';
import { Text } from './text.js';
import { memo } from 'react';
import { QUEUE_LIMIT } from '../state/ui-state.js';

function oneLine(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Inputs waiting for the agent, shown above the prompt in the order they will run. */
export const QueueView = memo(function QueueView({ queue }: { queue: readonly string[] }) {
  if (queue.length === 0) return null;
  return (
    <Box flexDirection="column" marginTop={1}>
      {queue.map((text, i) => (
        <Text key={i} dimColor>
          {`↳ queued ${i + 1}/${QUEUE_LIMIT}: ${oneLine(text)}`}
        </Text>
      ))}
    </Box>
  );
});
