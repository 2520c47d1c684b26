import { useStdout } from 'ink';
import { createContext, useContext } from 'react';

/**
 * The width the transcript is drawn at. `<Static>` draws at the terminal's width; the plain
 * scrollback (scrollback.tsx) renders off screen at a width of its own and provides it here.
 */
export const ColumnsContext = createContext<number | undefined>(undefined);

/** Columns to lay out for: the provided width, else the terminal's (80 when unknown). */
export function useColumns(): number {
  const provided = useContext(ColumnsContext);
  const { stdout } = useStdout();
  return provided ?? (stdout?.columns || 80);
}
