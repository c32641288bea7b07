import { describe, expect, it, vi } from 'vitest';
import { newSnapshotId } from '../../src/snapshots/snapshot';
import { createSession } from '../../src/index';
import { Counter } from '../fixtures';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The Unix time in ms in the first 48 bits of a UUID version 7. */
const timeOf = (id: string): number => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

describe('snapshot ids (UUID version 7, RFC 9562)', () => {
  it('are version 7 UUIDs carrying the time they were made', () => {
    const before = Date.now();
    const id = createSession({ slices: [Counter] }).snapshot().id;
    expect(id).toMatch(UUID_V7);
    expect(timeOf(id)).toBeGreaterThanOrEqual(before);
    expect(timeOf(id)).toBeLessThanOrEqual(Date.now() + 1);
  });

  it('increase within a process, also many in one millisecond and when the clock goes back', () => {
    const now = vi.spyOn(Date, 'now');
    try {
      now.mockReturnValue(1_800_000_000_000);
      const ids = Array.from({ length: 5_000 }, () => newSnapshotId());
      now.mockReturnValue(1_700_000_000_000);
      ids.push(newSnapshotId(), newSnapshotId());
      for (const id of ids) expect(id).toMatch(UUID_V7);
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort()).toEqual(ids);
      // 5,000 ids in one millisecond overflow the 12-bit counter: later ids borrow the next milliseconds.
      expect(timeOf(ids[0]!)).toBe(1_800_000_000_000);
      expect(timeOf(ids.at(-1)!)).toBeGreaterThan(1_800_000_000_000);
      expect(timeOf(ids.at(-1)!)).toBeLessThan(1_800_000_000_010);
    } finally {
      now.mockRestore();
    }
  });
});
