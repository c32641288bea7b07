import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { productionPlugin } from '../../scripts/production-build';
import { codedSites, errorsDoc } from '../../scripts/errors-doc';

/**
 * docs/errors.md lists every error code of the production build with the development build's
 * full message, as scripts/errors-doc.ts reads them from the source; and the production build
 * (src/internal/dev.ts as `DEV = false`) does throw the short coded messages, with the same error
 * classes, names and codes as the development build that the other tests run.
 */
const root = resolve(__dirname, '../..');

describe('docs/errors.md', () => {
  it('is what scripts/errors-doc.ts makes of the source (run it after changing a message)', () => {
    expect(readFileSync(resolve(root, 'docs/errors.md'), 'utf8')).toBe(errorsDoc(codedSites(root)));
  });

  it('numbers the codes E1..En, each used at one place', () => {
    const codes = codedSites(root).map((s) => s.code);
    expect(codes.length).toBeGreaterThan(40);
    expect(codes).toEqual(codes.map((_, i) => `E${i + 1}`));
  });
});

describe('the production build', () => {
  it('throws the short coded message with the same class, name and code', async () => {
    const program = `
      import { z } from 'zod';
      import { createStore, defineEvent, defineSlice, append, isRxSliceError } from ${JSON.stringify(resolve(root, 'src/index.ts'))};
      const Sent = defineEvent('chat/sent', z.object({ text: z.string() }));
      const Other = defineEvent('chat/send', z.object({ text: z.string() }));
      const Messages = defineSlice('messages', { policy: 'log', reducers: ({ on }) => [on(Other, (_v, e) => append(e.payload))] });
      const store = createStore({ slices: [Messages] });
      const out = [];
      for (const event of [Sent({ text: 'a' }), Other({ text: 1 })]) {
        try { store.dispatch(event); } catch (e) { out.push({ name: e.name, code: e.code, rx: isRxSliceError(e), message: e.message }); }
      }
      export default out;
    `;
    const result = await build({
      stdin: { contents: program, resolveDir: root, loader: 'ts', sourcefile: 'production-check.ts' },
      bundle: true,
      format: 'esm',
      platform: 'node',
      // As the production build (tsup.config.ts) and an app's minifying bundler fold `!DEV ? ... : ...`.
      minifySyntax: true,
      write: false,
      plugins: [productionPlugin, { name: 'packages-external', setup: (b) => b.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, external: true })) }],
      logLevel: 'silent',
    });
    const code = result.outputFiles[0]!.text;
    expect(code).not.toContain('is not declared in this session');
    // The typo suggestion (closestType, an edit distance) is development-only code.
    expect(code).not.toContain('closestType');
    const url = `data:text/javascript;base64,${Buffer.from(code.replaceAll("from \"zod\"", `from ${JSON.stringify(import.meta.resolve('zod'))}`).replaceAll("from \"rxjs\"", `from ${JSON.stringify(import.meta.resolve('rxjs'))}`).replaceAll("from \"immer\"", `from ${JSON.stringify(import.meta.resolve('immer'))}`)).toString('base64')}`;
    const out = ((await import(/* @vite-ignore */ url)) as { default: { name: string; code: string; rx: boolean; message: string }[] }).default;
    expect(out).toEqual([
      {
        name: 'UnknownEventError',
        code: 'UNKNOWN_EVENT',
        rx: true,
        message: 'rxslice E2: "chat/sent"; see https://github.com/rxslice/rxslice/blob/main/docs/errors.md#e2',
      },
      {
        name: 'InvalidEventError',
        code: 'INVALID_EVENT',
        rx: true,
        message: expect.stringMatching(/^rxslice E1: "chat\/send", schema: text: .+; see https:\/\/github\.com\/rxslice\/rxslice\/blob\/main\/docs\/errors\.md#e1$/),
      },
    ]);
  });
});
