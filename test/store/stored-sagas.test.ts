import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastValueFrom } from "rxjs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  createSession,
  installSagas,
  isRxSliceError,
  SagaRuntimeMissingError,
  type SagaRecord,
} from "../../src/index";
import { jsonl } from "../../src/jsonl/index";

/**
 * A program that defines no saga (so it never loads the saga runtime: docs/SIZE.md) reopening a
 * durable session whose storage holds saga state. The statically imported rxslice above is that
 * program: this file never calls its `defineSaga`. The stores are written by a second copy of the
 * library (`vi.resetModules()` and a dynamic import: its own modules, its own linked layers), as
 * another program would write them.
 */

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "rxslice-stored-sagas-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Writes, with its own copy of rxslice, one finished saga and (when `unfinished`) one left running at dispose. */
async function writeStore(unfinished: boolean): Promise<void> {
  vi.resetModules();
  const writer = await import("../../src/index");
  const { jsonl: writerJsonl } = await import("../../src/jsonl/index");
  const Deploy = writer
    .defineSaga("deploy", { input: z.object({ app: z.string() }) })
    .step("create", { run: (input) => ({ vm: `vm-${input.app}` }) })
    .step("wait", {
      run: (input) =>
        input.app === "stuck" ? new Promise<never>(() => undefined) : "ok",
    });
  const session = writer.createSession({
    slices: [],
    sagas: [Deploy],
    storage: writerJsonl({ dir, fsync: "never" }),
  });
  await lastValueFrom(
    session.runSaga(Deploy, { app: "web" }, { sagaId: "d1" })
  );
  if (unfinished)
    session
      .runSaga(Deploy, { app: "stuck" }, { sagaId: "d2" })
      .subscribe({ error: () => undefined });
  session.dispose();
}

describe("a program without defineSaga reopening a durable session that holds saga state", () => {
  it("sagaHistory() reads the stored completion records (without the saga runtime)", async () => {
    await writeStore(false);
    const session = createSession({
      slices: [],
      storage: jsonl({ dir, fsync: "never" }),
      unknownEvents: "accept",
    });
    const history = session.sagaHistory();
    expect(
      history.map((r: SagaRecord) => [
        r.saga,
        r.sagaId,
        r.outcome,
        r.input,
        r.results,
      ])
    ).toEqual([
      [
        "deploy",
        "d1",
        "completed",
        { app: "web" },
        { create: { vm: "vm-web" }, wait: "ok" },
      ],
    ]);
    expect(session.sagaHistory()).toBe(history); // the same array while nothing changes
    expect(session.resumeSagas()).toEqual([]); // nothing unfinished
    session.dispose();
    expect(() => session.sagaHistory()).toThrow(/disposed/);
  });

  it("resumeSagas() refuses, naming the unfinished sagas and what to call, instead of answering []", async () => {
    await writeStore(true);
    const session = createSession({
      slices: [],
      storage: jsonl({ dir, fsync: "never" }),
      unknownEvents: "accept",
    });
    let error: unknown;
    try {
      session.resumeSagas();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SagaRuntimeMissingError);
    expect(isRxSliceError(error) && error.code).toBe("SAGA_RUNTIME_MISSING");
    expect(
      (error as SagaRuntimeMissingError).unfinished.map((p) => [
        p.saga,
        p.sagaId,
      ])
    ).toEqual([["deploy", "d2"]]);
    expect((error as Error).message).toMatch(
      /unfinished sagas \("deploy", id "d2", of 1\); none was resumed\. Pass sagas made by defineSaga to createSession\(\{ sagas \}\)/
    );
    expect(session.sagaHistory().map((r) => r.sagaId)).toEqual(["d1"]);
    session.dispose();
    // What the refusing session read is still stored, for a program that defines the saga.
    const again = createSession({
      slices: [],
      storage: jsonl({ dir, fsync: "never" }),
      unknownEvents: "accept",
    });
    expect(() => again.resumeSagas()).toThrow(SagaRuntimeMissingError);
    again.dispose();
  });

  it("a memory session with no saga state answers [] for both", () => {
    const session = createSession({ slices: [] });
    expect(session.sagaHistory()).toEqual([]);
    expect(session.resumeSagas()).toEqual([]);
    session.dispose();
  });

  it("the saga options without a saga definition fail with SagaRuntimeMissingError, saying how to attach the runtime", () => {
    for (const [options, needed] of [
      [
        { slices: [], sagaHistory: { keepLast: 5 } },
        "createSession({ sagaHistory })",
      ],
      [{ slices: [], sagas: [] }, "createSession({ sagas: [] })"],
    ] as const) {
      let error: unknown;
      try {
        createSession(options);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SagaRuntimeMissingError);
      expect((error as SagaRuntimeMissingError).needed).toBe(needed);
      expect((error as Error).message).toMatch(
        /this program defines no saga\. Pass sagas made by defineSaga to createSession\(\{ sagas \}\) or call installSagas\(session, \{ sagas \}\)/
      );
    }
  });

  // Last: installSagas links the saga runtime for the rest of this program, as defineSaga would.
  it("installSagas attaches the runtime (and links it): sagaHistory() and resumeSagas() answer from it", async () => {
    await writeStore(false);
    const session = createSession({
      slices: [],
      storage: jsonl({ dir, fsync: "never" }),
      unknownEvents: "accept",
    });
    installSagas(session, { history: { keepLast: 5 } });
    expect(session.sagaHistory().map((r) => r.sagaId)).toEqual(["d1"]);
    expect(session.resumeSagas()).toEqual([]);
    session.dispose();
  });
});
