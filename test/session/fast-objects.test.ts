import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// V8 builds an object literal that declares a getter (and an object that gets properties added
// after it was built) in dictionary mode, where every property read is a hash lookup: this pins
// that the session, its internals and its slice handles stay fast (src/session/create-core-session.ts, CORE).
describe('the objects a session hands out keep fast properties', () => {
  it('session, internals, slice handles (one hidden class for every handle of a slice), computed handles and installed machines', () => {
    const fixture = fileURLToPath(new URL('./fixtures/fast-objects.ts', import.meta.url));
    const run = spawnSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', fixture], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ session: true, internals: true, handle: true, sameHandleMap: true, computed: true, machine: true, machineState: 'on', lastSeq: 1, size: 1 });
  });
});
