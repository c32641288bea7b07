// The assertions of `npm run check:entries`, shared by the ESM run (entries-esm.mjs, `import`)
// and the CommonJS run (entries-cjs.cjs, `require`). Both run in a scratch directory where
// node_modules/rxslice is the packed tarball, so they see exactly what a user installs.
'use strict';

/**
 * @param {(specifier: string) => Promise<Record<string, any>>} load - `import()` or `require`
 * @param {{ format: 'esm' | 'cjs', withOptionalPeers: boolean, entries: string[], optionalPeers: string[] }} options
 *   entries: the package's subpath entries ('.', './testing', ...), from its package.json exports;
 *   optionalPeers: its optional peer dependencies (installed only when withOptionalPeers)
 * @returns {Promise<string[]>} failures (empty when every check passed)
 */
async function checkEntries(load, { format, withOptionalPeers, entries, optionalPeers }) {
  const failures = [];
  const fail = (message) => failures.push(`[${format}${withOptionalPeers ? '' : ', core deps only'}] ${message}`);
  const attempt = async (what, fn) => {
    try {
      await fn();
    } catch (e) {
      fail(`${what}: ${e && e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : String(e)}`);
    }
  };

  const loaded = new Map();
  for (const entry of entries) {
    const specifier = entry === '.' ? 'rxslice' : `rxslice/${entry.slice(2)}`;
    try {
      loaded.set(entry, await load(specifier));
    } catch (e) {
      const message = String(e && e.message);
      const missingPeer = optionalPeers.find((peer) => message.includes(`'${peer}'`));
      // Without the optional peers, an entry other than the core may fail to load, but only for
      // want of one of them (the core itself must never need them).
      if (withOptionalPeers || entry === '.' || missingPeer === undefined || !/MODULE_NOT_FOUND/.test(String(e && e.code))) {
        fail(`load ${specifier}: ${e && e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : String(e)}`);
      }
    }
  }
  const core = loaded.get('.');
  if (!core) return failures;

  // 1. Every name an entry shares with the core is the same object (one copy of the core).
  for (const [entry, mod] of loaded) {
    if (entry === '.') continue;
    for (const name of Object.keys(mod)) {
      if (name in core && mod[name] !== core[name]) fail(`rxslice/${entry.slice(2)} exports its own copy of ${name}`);
    }
  }

  // 2. An error thrown by a session made through rxslice/testing is an InvalidEventError of rxslice.
  const testing = loaded.get('./testing');
  if (testing) {
    await attempt('rxslice/testing: InvalidEventError across entries', async () => {
      const { z } = await load('zod');
      const { TestScheduler } = await load('rxjs/testing');
      const Added = core.defineEvent('test/added', z.object({ n: z.number() }));
      const Items = core.defineSlice('items', { policy: 'log', reducers: ({ on }) => [on(Added, (_v, e) => core.append(e.payload))] });
      const scheduler = new TestScheduler(() => {});
      let thrown;
      scheduler.run(() => {
        const session = testing.createMarbleSession(scheduler, { slices: [Items] });
        try {
          session.dispatch(Added({ n: 'one' }));
        } catch (e) {
          thrown = e;
        }
      });
      if (thrown === undefined) throw new Error('dispatch of an invalid payload did not throw');
      if (!(thrown instanceof core.InvalidEventError)) throw new Error(`${thrown.name} from createMarbleSession is not instanceof rxslice's InvalidEventError`);
      if (!(thrown instanceof core.RxSliceError)) throw new Error("not instanceof rxslice's RxSliceError");
    });
  }

  // 3. rxslice/scxml: its errors are rxslice errors, and its machines install in a core session.
  const scxml = loaded.get('./scxml');
  if (scxml) {
    await attempt('rxslice/scxml: errors and machines across entries', async () => {
      let thrown;
      try {
        scxml.fromSCXML('<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0"><state id="a">');
      } catch (e) {
        thrown = e;
      }
      if (!(thrown instanceof scxml.ScxmlInvalidError)) throw new Error(`malformed SCXML threw ${thrown && thrown.name}, not ScxmlInvalidError`);
      if (!(thrown instanceof core.RxSliceError)) throw new Error("ScxmlInvalidError is not instanceof rxslice's RxSliceError");
      const def = scxml.fromSCXML(
        '<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" name="door" initial="closed">' +
          '<state id="closed"><transition event="door/opened" target="open"/></state><state id="open"/></scxml>',
      );
      const session = core.createSession({ slices: [] });
      const machine = session.install(def);
      session.dispatch({ type: 'door/opened', payload: undefined });
      if (!machine.matches('open')) throw new Error(`imported machine did not move: ${JSON.stringify(machine.current)}`);
      session.dispose();
    });
  }
  // 4. rxslice/transcripts: a replay recorded with its helpers reads back through rxslice/storage/jsonl
  //    with transcriptDefinitions(), and the state at the last seq is the live session's.
  const transcripts = loaded.get('./transcripts');
  const jsonl = loaded.get('./storage/jsonl');
  if (transcripts && jsonl) {
    await attempt('rxslice/transcripts: readRecording(file, transcriptDefinitions())', async () => {
      const fs = await load('node:fs');
      const os = await load('node:os');
      const path = await load('node:path');
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rxslice-transcripts-'));
      try {
        const file = path.join(dir, 'run.jsonl');
        const lines = [
          JSON.stringify({ type: 'user', uuid: 'u1', timestamp: '2025-01-01T00:00:00.000Z', message: { role: 'user', content: 'hi' } }),
          JSON.stringify({
            type: 'assistant',
            uuid: 'a1',
            timestamp: '2025-01-01T00:00:02.000Z',
            message: { id: 'm1', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'hello' }], usage: { input_tokens: 1, output_tokens: 2 } },
          }),
        ];
        const session = transcripts.createTranscriptSession();
        const recorder = transcripts.startRecording(session, file);
        const report = transcripts.replayTranscript(lines, { source: 'entry-check', session });
        recorder.close();
        if (report.events !== 2) throw new Error(`replayTranscript dispatched ${report.events} events of 2 lines`);
        const recording = jsonl.readRecording(file, transcripts.transcriptDefinitions());
        const live = JSON.stringify(session.snapshot({ includeLogs: true }).toJSON().slices);
        const last = JSON.stringify(recording.stateAt(recording.lastSeq).toJSON().slices);
        session.dispose();
        if (live !== last) throw new Error('the recording read with transcriptDefinitions() does not end in the live state');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  // 5. rxslice/react, rxslice/angular and rxslice/vue read a core session (optional peers react,
  //    @angular/core, vue; react-dom/server and vue/server-renderer render), and their errors are rxslice errors.
  const usageSession = async () => {
    const { z } = await load('zod');
    const Used = core.defineEvent('test/used', z.object({ n: z.number() }));
    const Usage = core.defineSlice('usage', { policy: 'state', initial: [0], reducers: ({ onLatest }) => [onLatest(Used, (n, e) => n + e.payload.n)] });
    return { session: core.createSession({ slices: [Usage] }), Used, Usage };
  };
  const react = loaded.get('./react');
  if (react) {
    await attempt('rxslice/react: a hook renders a core session on the server', async () => {
      const { createElement: h } = await load('react');
      const { renderToString } = await load('react-dom/server');
      const { session, Used, Usage } = await usageSession();
      session.dispatch(Used({ n: 5 }));
      const View = () => h('b', null, String(react.useLatest(Usage)));
      const html = renderToString(h(react.SessionProvider, { session }, h(View)));
      if (html !== '<b>5</b>') throw new Error(`rendered ${html}`);
      let thrown;
      try {
        renderToString(h(View));
      } catch (e) {
        thrown = e;
      }
      if (!(thrown instanceof core.RxSliceError) || thrown.code !== 'SESSION_NOT_PROVIDED') throw new Error(`outside a provider: ${thrown}`);
    });
  }
  const angular = loaded.get('./angular');
  if (angular) {
    await attempt('rxslice/angular: a signal follows a core session', async () => {
      const { Injector } = await load('@angular/core');
      const { session, Used, Usage } = await usageSession();
      const injector = Injector.create({ providers: [angular.provideSession(session)] });
      const usage = angular.injectLatest(Usage, { injector });
      session.dispatch(Used({ n: 3 }));
      if (usage() !== 3) throw new Error(`signal holds ${usage()}`);
      injector.destroy();
      let thrown;
      try {
        angular.injectLatest(Usage, { injector: Injector.create({ providers: [] }) });
      } catch (e) {
        thrown = e;
      }
      if (!(thrown instanceof core.RxSliceError) || thrown.code !== 'SESSION_NOT_PROVIDED') throw new Error(`without provideSession: ${thrown}`);
    });
  }
  const vue = loaded.get('./vue');
  if (vue) {
    await attempt('rxslice/vue: a composable renders a core session on the server', async () => {
      const { createSSRApp, defineComponent, h } = await load('vue');
      const { renderToString } = await load('vue/server-renderer');
      const { session, Used, Usage } = await usageSession();
      session.dispatch(Used({ n: 4 }));
      const View = defineComponent(() => {
        const usage = vue.useLatest(Usage);
        return () => h('b', null, String(usage.value));
      });
      const app = createSSRApp(View);
      vue.provideSession(session, app);
      const html = await renderToString(app);
      if (html !== '<b>4</b>') throw new Error(`rendered ${html}`);
      let thrown;
      const bare = createSSRApp(View);
      bare.config.warnHandler = () => {};
      bare.config.errorHandler = (e) => {
        thrown = e;
      };
      await renderToString(bare).catch((e) => {
        thrown = e;
      });
      if (!(thrown instanceof core.RxSliceError) || thrown.code !== 'SESSION_NOT_PROVIDED') throw new Error(`without provideSession: ${thrown}`);
    });
  }
  return failures;
}

module.exports = { checkEntries };
