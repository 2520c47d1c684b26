/**
 * What a picker shows of its options while the user types: every option whose label or hint holds
 * each typed word (case-insensitive), in the original order. Pure.
 */
import type { PickerOption, PickerView } from './ui-state.js';

export function matchesFilter(option: PickerOption, filter: string): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const text = `${option.label} ${option.hint ?? ''}`.toLowerCase();
  return words.every((w) => text.includes(w));
}

/** The options the picker lists now; `view.selected` indexes this list. */
export function shownOptions(view: Pick<PickerView, 'options' | 'filter'>): PickerOption[] {
  return view.filter ? view.options.filter((o) => matchesFilter(o, view.filter!)) : view.options;
}

/** The option Enter would choose, if any is listed. */
export function selectedOption(view: PickerView): PickerOption | undefined {
  return shownOptions(view)[view.selected];
}
