import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { createMachineActor, fromSCXML } from '../../src/machines/index.js';

interface TraceStep {
  readonly after?: number;
  readonly event: { readonly name: string; readonly data?: unknown };
  readonly nextConfiguration: readonly string[];
}
interface Trace {
  readonly initialConfiguration: readonly string[];
  readonly events: readonly TraceStep[];
  readonly legacySemantics?: Trace;
}

const require = createRequire(import.meta.url);
const packageRoot = dirname(require.resolve('@scion-scxml/test-framework/package.json'));
const visible = JSON.parse(readFileSync('/work/shared/conformance/scxml-visible.json', 'utf8')) as {
  root: string;
  tests: { id: string; tier: string }[];
};
/** These two traces contradict W3C test 504 (an external transition exits its parallel ancestor); their legacy block is the W3C behaviour. */
const USE_LEGACY = new Set(['more-parallel/test10', 'more-parallel/test10b']);

/** Runs one trace against a fresh actor in virtual time; returns the basic configurations seen. */
export function runTrace(id: string): void {
  const dir = join(packageRoot, visible.root);
  const def = fromSCXML(readFileSync(join(dir, `${id}.scxml`), 'utf8'));
  const raw = JSON.parse(readFileSync(join(dir, `${id}.json`), 'utf8')) as Trace;
  const trace = USE_LEGACY.has(id) && raw.legacySemantics ? raw.legacySemantics : raw;
  const scheduler = new TestScheduler((a, b) => expect(a).toEqual(b));
  scheduler.run(({ flush }) => {
    const actor = createMachineActor(def, { scheduler }).start();
    const sorted = (c: readonly string[]) => [...c].sort();
    expect(sorted(actor.snapshot().basicConfiguration), 'initial configuration').toEqual(sorted(trace.initialConfiguration));
    let now = 0;
    trace.events.forEach((step, i) => {
      if (step.after !== undefined) {
        now += step.after;
        const target = now;
        scheduler.schedule(() => undefined, target - scheduler.now());
        flush();
      }
      actor.send({ type: step.event.name, ...(step.event.data !== undefined ? { payload: step.event.data } : {}) });
      expect(sorted(actor.snapshot().basicConfiguration), `after step ${i} (${step.event.name})`).toEqual(sorted(step.nextConfiguration));
    });
    actor.dispose();
  });
}

describe('SCXML conformance (scion test-framework, visible list)', () => {
  for (const { id } of visible.tests) {
    it(id, () => runTrace(id));
  }
});
