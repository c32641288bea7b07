import { RxSliceError } from '../internal/errors.js';
import type { SliceDef } from '../slices/reducer.js';
import type { SliceView } from '../slices/slice-view.js';
import { quote } from '../internal/quote';

/**
 * A read-only view of the session's slices, as guards and actions see them (`args.slices`).
 * In a session it shows the committed state before the event being decided: an installed
 * machine decides before the slices' reducers run.
 *
 * @example
 * ```ts
 * guard: function stepExists({ event, slices }) {
 *   return slices.get(Plan).all().some((step) => step.id === event.payload.id);
 * }
 * ```
 */
export interface MachineSlices {
  /**
   * The committed items of `slice` as a lazy read-only view (`all()`, `latest()`, `size`, `where`, `at`).
   * @throws `SliceNotRegisteredError` (in a session) when the slice is not part of it;
   * {@link MachineSlicesUnavailableError} when the machine runs without slices.
   */
  get<TItem>(slice: SliceDef<string, TItem>): SliceView<TItem>;
}

/**
 * Thrown by `slices.get(...)` in a guard or action of a machine that runs without slices
 * (a standalone actor or `transition()` without the `slices` option). Inside a guard it
 * counts as false and raises `error.execution`, as every throwing guard does.
 *
 * @example
 * ```ts
 * transition(PlanWorkflow, snapshot, UpdateStep({ id: 'a', status: 'done' })); // the guard fails: no slices
 * transition(PlanWorkflow, snapshot, UpdateStep({ id: 'a', status: 'done' }), { slices: sessionSlices(session) });
 * ```
 */
export class MachineSlicesUnavailableError extends RxSliceError {
  override readonly name = 'MachineSlicesUnavailableError';
  constructor(readonly slice: string) {
    super(
      'MACHINE_SLICES_UNAVAILABLE',
      `A guard or action read slice ${quote(slice)}, but this machine runs without slices. ` +
        'Install it in a session (session.install(machine)), or pass { slices } to transition() / createMachineActor().',
    );
  }
}

/** The view used when a machine runs outside a session: every read throws {@link MachineSlicesUnavailableError}. */
export const NO_SLICES: MachineSlices = Object.freeze({
  get(slice: SliceDef<string, unknown>): never {
    throw new MachineSlicesUnavailableError(slice.name);
  },
}) as MachineSlices;
