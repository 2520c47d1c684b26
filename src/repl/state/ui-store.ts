import { uiReducer } from './ui-reducer.js';
import type { UiAction, UiState } from './ui-state.js';

/**
 * The UI state outside React: the runtime dispatches from async code and reads the current state
 * synchronously; components subscribe with `useSyncExternalStore`.
 */
export interface UiStore {
  getState(): UiState;
  dispatch(action: UiAction): void;
  subscribe(listener: () => void): () => void;
}

export function createUiStore(initial: UiState): UiStore {
  let state = initial;
  const listeners = new Set<() => void>();
  return {
    getState: () => state,
    dispatch(action) {
      const next = uiReducer(state, action);
      if (next === state) return;
      state = next;
      for (const l of listeners) l();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
