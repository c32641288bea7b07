import type { JournalOp } from './journal-format';

/** @internal An entry of an {@link OpLog} starting an append op: the count of its items, then the items. */
export const APPEND = 0;
/** @internal An entry starting a replace by one item (`["r",[item]]`): the item. */
export const REPLACE_ONE = 1;
/** @internal An entry starting any other op: the {@link JournalOp}. */
export const OP = 2;

/**
 * @internal The ops a slice's transaction recorded for one event, in one flat list that every
 * event reuses: an op is a kind ({@link APPEND}, {@link REPLACE_ONE}, {@link OP}) followed by
 * its arguments. The two ops of the common steps (append items; replace the only item of a
 * state slice) allocate nothing; the others keep their {@link JournalOp} tuple. Consecutive
 * appends make one op, as `["a",[items…]]`.
 */
export class OpLog {
  /** The entries; those from {@link length} on are unused (`undefined`, so no item is kept alive). */
  readonly entries: unknown[] = [];
  /** Entries in use (0: no op recorded). */
  length = 0;
  /** Index of the item count of the trailing append op, -1 when the last op is not an append. */
  private appendAt = -1;

  append(item: unknown): void {
    const entries = this.entries;
    if (this.appendAt >= 0) {
      (entries[this.appendAt] as number)++;
    } else {
      entries[this.length++] = APPEND;
      this.appendAt = this.length;
      entries[this.length++] = 1;
    }
    entries[this.length++] = item;
  }

  replaceOne(item: unknown): void {
    this.entries[this.length++] = REPLACE_ONE;
    this.entries[this.length++] = item;
    this.appendAt = -1;
  }

  op(op: JournalOp): void {
    this.entries[this.length++] = OP;
    this.entries[this.length++] = op;
    this.appendAt = -1;
  }

  /** Forgets every op (and the references to their items). */
  clear(): void {
    const entries = this.entries;
    for (let i = 0; i < this.length; i++) entries[i] = undefined;
    this.length = 0;
    this.appendAt = -1;
  }

}
