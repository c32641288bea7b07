import type { z } from 'zod';
import { RxSliceError } from '../internal/errors';
import { clip, quote } from '../internal/quote';

/**
 * Thrown for a malformed signal channel declaration, or a signal that does not satisfy its
 * channel's schema (then `issues` holds zod's issues, code and path, and nothing was written).
 */
export class InvalidSignalError extends RxSliceError {
  override readonly name = 'InvalidSignalError';
  constructor(
    readonly channel: string,
    reason: string,
    readonly issues: readonly { readonly code: string; readonly path: readonly PropertyKey[]; readonly message: string }[] = [],
  ) {
    super('INVALID_SIGNAL', `Signal channel ${quote(channel)}: ${clip(reason, 1000)}`);
  }
}

/**
 * A typed signal channel: a name and the zod schema of its signals. Inert and serializable by
 * name; `createSignalDirectory({ dir, channel })` opens it over a directory.
 */
export interface SignalChannelDef<TName extends string = string, TSignal = unknown, TInput = TSignal> {
  readonly name: TName;
  /** The schema every signal is validated with, when published and when read back. */
  readonly schema: z.ZodType<TSignal, TInput>;
  /** Phantom: the signal type as read (the schema's output: `typeof Completion.Signal`). Always `undefined` at run time. */
  readonly Signal: TSignal;
  /** Phantom: what `publish` takes (the schema's input: defaults may be left out). Always `undefined` at run time. */
  readonly Input: TInput;
}

/** The signal type of a channel: `InferSignal<typeof Completion>`. */
export type InferSignal<TChannel> = TChannel extends SignalChannelDef<string, infer TSignal, any> ? TSignal : never;

/** A channel name is also a directory-safe word: letters, digits, `.`, `_`, `-`, at most 64. */
export const SAFE_WORD = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Declares a typed channel of signals between processes: the name and the zod schema of its
 * signals. Inert; open it over a directory with `createSignalDirectory({ dir, channel })`.
 *
 * @remarks Signals are the "completion signal" files of the agent-coordination pattern (one JSON
 * file per signal in a shared directory), typed: publishing validates with `schema` and so does
 * every read, so a file written by hand or by another program is checked before a handler sees it.
 * @param name - Letters, digits, `.`, `_` or `-` (at most 64; it is written into every file).
 * @param schema - A zod schema of one signal; its output must be JSON data.
 * @throws {@link InvalidSignalError} for a name that is not such a word, or something that is not a zod schema.
 * @example
 * ```ts
 * const Completion = defineSignalChannel('completion', z.object({ agentType: z.string(), status: z.enum(['completed', 'failed']) }));
 * type Completion = typeof Completion.Signal; // { agentType: string; status: 'completed' | 'failed' }
 * ```
 */
export function defineSignalChannel<const TName extends string, TSchema extends z.ZodType>(name: TName, schema: TSchema): SignalChannelDef<TName, z.output<TSchema>, z.input<TSchema>> {
  if (typeof name !== 'string' || !SAFE_WORD.test(name)) {
    throw new InvalidSignalError(String(name), 'a channel name must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit (it is written into every signal file)');
  }
  if (schema === null || typeof schema !== 'object' || typeof (schema as { safeParse?: unknown }).safeParse !== 'function') {
    throw new InvalidSignalError(name, 'the second argument must be a zod schema, e.g. z.object({ status: z.string() })');
  }
  return Object.freeze({ name, schema: schema as z.ZodType<z.output<TSchema>, z.input<TSchema>>, Signal: undefined as unknown as z.output<TSchema>, Input: undefined as unknown as z.input<TSchema> });
}
