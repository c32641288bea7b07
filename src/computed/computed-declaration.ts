import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import type { ComputedDef } from './define-computed';
import { InvalidComputedError } from './computed-errors';

/** @internal True when `value` is a computed slice declaration. */
export const isComputedDef = (value: unknown): value is ComputedDef<string, unknown> =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'computed';

/** @internal Validates a computed (or computed family) name and sources. */
export function checkComputedDeclaration(name: string, sources: readonly unknown[]): void {
  if (typeof name !== 'string' || name.length === 0) {
    throw new InvalidComputedError(String(name), 'the name must be a non-empty string.');
  }
  sources.forEach((source, i) => {
    const ok =
      isComputedDef(source) ||
      (typeof source === 'object' && source !== null && typeof (source as { name?: unknown }).name === 'string' && Array.isArray((source as { reducers?: unknown }).reducers));
    if (!ok) {
      throw new InvalidComputedError(
        name,
        !DEV ? codedMessage('E34', `source ${i}`) : `source ${i} is neither a slice (defineSlice) nor a computed slice (defineComputed). Pass the declarations themselves.`,
      );
    }
  });
}
