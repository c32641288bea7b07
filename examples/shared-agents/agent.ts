/**
 * One agent process (started by main.ts): claims planned steps of the shared plan, runs their
 * tools (here: records them), marks them done, until no step is left. A claim is dispatched with
 * `expectedSeq` = the last seq this agent has seen: if the other agent appended first, the claim
 * fails with SeqConflictError, and the agent catches up and decides again.
 *
 * argv: url tablePrefix sessionId agentName. Prints one JSON line: { agent, steps, tools, conflicts }.
 */
import { createSharedSession, SeqConflictError } from '../../src/postgres/index';
import { Plan, StepClaimed, StepDone, ToolLog, ToolRan } from './plan';

const [url, tablePrefix, sessionId, agent] = process.argv.slice(2) as [string, string, string, string];

async function main(): Promise<void> {
  const session = await createSharedSession({ slices: [Plan, ToolLog], sessionId, tablePrefix, postgres: { connectionString: url, max: 3 }, pollIntervalMs: 200 });
  let steps = 0;
  let tools = 0;
  let conflicts = 0;
  for (;;) {
    const step = session.read(Plan).find((s) => s.status === 'planned');
    if (step === undefined) break;
    try {
      await session.dispatch(StepClaimed({ id: step.id, agent }), { expectedSeq: session.lastSeq });
    } catch (error) {
      if (!(error instanceof SeqConflictError)) throw error;
      conflicts++;
      await session.catchUp();
      continue;
    }
    for (const tool of step.tools) {
      await session.dispatch(ToolRan({ step: step.id, tool, agent }));
      tools++;
    }
    await session.dispatch(StepDone({ id: step.id, agent }));
    steps++;
  }
  process.stdout.write(`${JSON.stringify({ agent, steps, tools, conflicts })}\n`);
  await session.dispose();
}

main().catch((error: unknown) => {
  process.stderr.write(`${agent}: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
