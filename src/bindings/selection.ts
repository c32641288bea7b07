/** @internal The last selection a selector binding made: its input, selector and output. */
export interface Selection<TSelected> {
  readonly input: unknown;
  readonly selector: unknown;
  readonly output: TSelected;
}

/**
 * @internal The selection of `input` by `selector` (react-redux's `useSelector` rule, shared by the
 * React and Vue bindings): the previous selection when neither `input` (by reference) nor
 * `selector` changed; otherwise `selector(input)`, replaced by the previous output when
 * `isEqual(previous, next)` holds, so an equal selection keeps its identity and notifies nobody.
 */
export function select<TInput, TSelected>(
  previous: Selection<TSelected> | undefined,
  input: TInput,
  selector: (value: TInput) => TSelected,
  isEqual: (previous: TSelected, next: TSelected) => boolean,
): Selection<TSelected> {
  if (previous !== undefined && previous.input === input && previous.selector === selector) return previous;
  const next = selector(input);
  return { input, selector, output: previous !== undefined && isEqual(previous.output, next) ? previous.output : next };
}
