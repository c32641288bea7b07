/**
 * The Redux DevTools bridge against a real `@redux-devtools/cli` server process (its socket
 * API), with a monitor connected as the DevTools app connects: login "monitor", the `log`
 * channel for what apps send, the `respond` channel for commands.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import jsan from 'jsan';
import socketClusterClient from 'socketcluster-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, type RxSliceError } from '../../src/index';
import { connectDevTools, DevToolsError } from '../../src/devtools/index';
import { Counter, CounterBumped, NoteAdded, Notes } from '../fixtures';
import { reduxDevToolsServer } from '../../scripts/redux-devtools-server';

const tmp = mkdtempSync(path.join(tmpdir(), 'rxslice-devtools-'));

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

interface LogMessage {
  type: string;
  id: string;
  name?: string;
  payload?: string;
  action?: string;
  nextActionId?: number;
}

let server: ChildProcess;
let port: number;
let serverLog = '';

beforeAll(async () => {
  port = await freePort();
  // The server keeps reports in a database through knex: PostgreSQL from the test setup (its
  // default, sqlite3, is a native addon this project does not build).
  const dbOptions = path.join(tmp, 'db.json');
  writeFileSync(dbOptions, JSON.stringify({ client: 'pg', connection: process.env['DATABASE_URL'], migrate: true }));
  server = spawn(process.execPath, [reduxDevToolsServer(), '--hostname=127.0.0.1', `--port=${port}`, `--dbOptions=${dbOptions}`], {
    cwd: tmp,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (d: Buffer) => (serverLog += d.toString()));
  server.stderr?.on('data', (d: Buffer) => (serverLog += d.toString()));
  // Ready when its socket server accepts a monitor's login.
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const probe = await monitor();
      probe.close();
      break;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`the redux-devtools server did not start: ${String(e)}\n${serverLog}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}, 360_000);

afterAll(() => {
  server?.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

/** A DevTools monitor: what the Redux DevTools app does on the socket. */
async function monitor() {
  const socket = socketClusterClient.create({ hostname: '127.0.0.1', port, autoReconnect: false, connectTimeout: 2000 });
  await Promise.race([
    socket.listener('connect').once(),
    socket.listener('error').once().then(({ error }: { error: Error }) => Promise.reject(error)),
  ]);
  const channelName = (await socket.invoke('login', 'monitor')) as string;
  const received: LogMessage[] = [];
  const waiters: { test: (m: LogMessage) => boolean; resolve: (m: LogMessage) => void }[] = [];
  const channel = socket.subscribe(channelName);
  await channel.listener('subscribe').once();
  void (async () => {
    for await (const data of channel) {
      const m = data as LogMessage;
      received.push(m);
      for (const w of [...waiters]) if (w.test(m)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(m));
    }
  })();
  return {
    received,
    /** The next message (or one already received after `from`) that passes `test`. */
    next(test: (m: LogMessage) => boolean, from = 0): Promise<LogMessage> {
      const seen = received.slice(from).find(test);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise<LogMessage>((resolve, reject) => {
        waiters.push({ test, resolve });
        setTimeout(() => reject(new Error(`no such message; received: ${received.map((r) => r.type).join(', ')}`)), 10_000);
      });
    },
    /** Sends a command to the app(s), as the DevTools app does. */
    send(message: Record<string, unknown>) {
      socket.transmit('respond', message);
    },
    close() {
      socket.disconnect();
    },
  };
}

const parse = (text: string | undefined): any => jsan.parse(text ?? 'null');

/** Waits for app `name` to log in, and starts monitoring it as the DevTools app does (START → the app sends its STATE). */
async function startMonitoring(m: Awaited<ReturnType<typeof monitor>>, name: string): Promise<LogMessage> {
  await m.next((x) => x.type === 'START' && x.name === name);
  m.send({ type: 'START' });
  return m.next((x) => x.type === 'STATE' && x.name === name);
}

/**
 * A session of Notes and Counter (prepared by `prepare` before the bridge connects), bridged to
 * the server as `name`, with a monitor watching it; `close` tears all three down.
 */
async function bridged(name: string, options: { maxAge?: number } = {}, prepare: (session: ReturnType<typeof createSession>) => void = () => {}) {
  const m = await monitor();
  const session = createSession({ slices: [Notes, Counter] });
  const errors: RxSliceError[] = [];
  session.errors$.subscribe((e) => errors.push(e));
  prepare(session);
  const devtools = await connectDevTools(session, { name, latencyMs: 0, ...options, remote: { hostname: '127.0.0.1', port } });
  await startMonitoring(m, name);
  const close = (): void => {
    devtools.disconnect();
    session.dispose();
    m.close();
  };
  return { m, session, errors, devtools, close };
}

describe('connectDevTools through @redux-devtools/remote to a @redux-devtools/cli server', () => {
  it('sends each committed event as an action with only the slices it changed', async () => {
    const { m, session, devtools, close } = await bridged('test-changed', {}, (s) => {
      for (let i = 0; i < 500; i++) s.dispatch(NoteAdded({ id: i, text: `note ${i} `.repeat(10) }));
    });
    const from = m.received.length;
    session.dispatch(CounterBumped({ by: 5 }));
    session.dispatch(CounterBumped({ by: 1 }));
    const first = await m.next((x) => x.type === 'ACTION' && x.name === 'test-changed', from);
    expect(parse(first.action)).toEqual({ type: 'counter/bumped', payload: { by: 5 }, seq: 501, meta: expect.anything(), changed: ['counter'] });
    // The state sent is the changed slice only: the 500 notes are not serialised again.
    expect(parse(first.payload)).toEqual({ counter: [{ n: 505 }] });
    expect(first.payload?.length).toBeLessThan(100);
    const second = await m.next((x) => x.type === 'ACTION' && x.name === 'test-changed' && x !== first, from);
    expect(parse(second.payload)).toEqual({ counter: [{ n: 506 }] });
    expect(devtools.sent).toBe(2);
    close();
  });

  it('jump and skip restore the session through one audited restore, re-running nothing', async () => {
    let handled = 0;
    const { m, session, devtools, close } = await bridged('test-jump', { maxAge: 10 }, (s) => {
      s.events$.subscribe((e) => CounterBumped.match(e.event) && handled++);
    });
    session.dispatch(CounterBumped({ by: 1 })); // action 1: n = 1
    session.dispatch(CounterBumped({ by: 10 })); // action 2: n = 11
    session.dispatch(NoteAdded({ id: 1, text: 'a' })); // action 3: n = 12, one note
    await m.next((x) => x.type === 'ACTION' && x.name === 'test-jump' && parse(x.action).seq === 3);
    const restored: number[] = [];
    const audit = session.committed$.subscribe((c) => c.event.type === 'rxslice.session.restored' && restored.push(c.seq));

    // Jump to the state after action 1.
    m.send({ type: 'DISPATCH', action: { type: 'JUMP_TO_ACTION', actionId: 1 } });
    await expect.poll(() => session.slice(Counter).latest()).toEqual({ n: 1 });
    expect(session.slice(Notes).all()).toEqual([]);
    expect(restored).toHaveLength(1);
    expect(devtools.restores).toBe(1);

    // Back to the end, then skip the last action (the note): the state before it.
    m.send({ type: 'DISPATCH', action: { type: 'JUMP_TO_ACTION', actionId: 3 } });
    await expect.poll(() => session.slice(Counter).latest()).toEqual({ n: 12 });
    m.send({ type: 'DISPATCH', action: { type: 'TOGGLE_ACTION', id: 3 } });
    await expect.poll(() => session.slice(Notes).all().length).toBe(0);
    expect(session.slice(Counter).latest()).toEqual({ n: 11 });
    expect(restored).toHaveLength(3);
    // Nothing was re-dispatched: the reducers saw the three events once.
    expect(handled).toBe(2);
    // The bridge's own restores are not sent back as actions: a marker event dispatched after
    // them arrives, and nothing before it was a restore (actions arrive in commit order).
    session.dispatch(NoteAdded({ id: 2, text: 'marker' }));
    await m.next((x) => x.type === 'ACTION' && x.name === 'test-jump' && parse(x.action).type === 'notes/added' && parse(x.action).payload.id === 2);
    expect(m.received.filter((x) => x.type === 'ACTION' && x.name === 'test-jump').map((x) => parse(x.action).type)).not.toContain('rxslice.session.restored');
    audit.unsubscribe();
    close();
  });

  it('dispatch from the DevTools goes through validation; an invalid action changes nothing', async () => {
    const { m, session, errors, devtools, close } = await bridged('test-dispatch');
    m.send({ type: 'ACTION', action: "{ type: 'counter/bumped', payload: { by: 7 } }" });
    await expect.poll(() => session.slice(Counter).latest()).toEqual({ n: 7 });
    m.send({ type: 'ACTION', action: "{ type: 'counter/bumped', payload: { by: 'seven' } }" });
    await expect.poll(() => errors.length).toBe(1);
    expect(errors[0]?.code).toBe('INVALID_EVENT');
    expect(session.slice(Counter).latest()).toEqual({ n: 7 });
    expect(devtools.dispatched).toBe(1);
    close();
  });

  it('import restores the imported state; invalid items are refused and change nothing', async () => {
    const { m, session, errors, close } = await bridged('test-import');
    session.dispatch(CounterBumped({ by: 2 }));
    const lifted = (counter: unknown) =>
      jsan.stringify({
        actionsById: { 0: { type: 'PERFORM_ACTION', action: { type: '@@INIT' }, timestamp: 0 } },
        computedStates: [{ state: { counter, notes: [{ id: 9, text: 'imported' }] } }],
        currentStateIndex: 0,
        nextActionId: 1,
        skippedActionIds: [],
        stagedActionIds: [0],
        committedState: { counter, notes: [{ id: 9, text: 'imported' }] },
      });
    m.send({ type: 'IMPORT', state: lifted([{ n: 'not a number' }]) });
    await expect.poll(() => errors.length).toBe(1);
    expect(session.slice(Counter).latest()).toEqual({ n: 2 });
    expect(session.slice(Notes).all()).toEqual([]);
    m.send({ type: 'IMPORT', state: lifted([{ n: 42 }]) });
    await expect.poll(() => session.slice(Counter).latest()).toEqual({ n: 42 });
    expect(session.slice(Notes).all()).toEqual([{ id: 9, text: 'imported' }]);
    close();
  });

  it('refuses bad options and a missing extension clearly', async () => {
    const session = createSession({ slices: [Counter] });
    await expect(connectDevTools(session, { maxAge: 0 })).rejects.toBeInstanceOf(DevToolsError);
    await expect(connectDevTools(session, { latencyMs: -1 })).rejects.toThrow(/latencyMs/);
    await expect(connectDevTools(session, { transport: 'extension' })).rejects.toThrow(/extension is not installed/);
    session.dispose();
    await expect(connectDevTools(session)).rejects.toThrow(/disposed/);
  });
});
