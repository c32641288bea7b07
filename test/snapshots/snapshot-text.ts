// Shared by the snapshotFromJSON tests (json-items, json-freeze-off): untrusted snapshot text
// built by hand, and what reading it gave.

/** The JSON text of a format-3 snapshot at seq 0 holding `slices` as given (nothing checked). */
export const snapshotText = (slices: Record<string, unknown>): string => JSON.stringify({ format: 'rxslice.snapshot', formatVersion: 3, seq: 0, at: 0, slices });

/** `'read'` when `run` returns, else the message of what it threw. */
export function outcome(run: () => unknown): string {
  try {
    run();
    return 'read';
  } catch (error) {
    return (error as Error).message;
  }
}
