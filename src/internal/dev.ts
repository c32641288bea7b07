/**
 * True in rxslice's development build (dist/, and the source that tests and tsx run), false in
 * its production build (dist/production/, which the `"production"` export condition selects:
 * Vite and webpack apply it in production mode, esbuild and Rollup users pass
 * `--conditions=production`). The production build replaces this module with
 * `export const DEV = false` (scripts/production-build.ts), and the bundler folds every
 * `!DEV ? codedMessage(code, facts) : full` to its first branch, so that build carries the short coded messages of
 * {@link codedMessage} instead of the full texts (docs/errors.md lists every code with its full
 * text). A constant rather than `process.env.NODE_ENV`, which throws in a browser that loads the
 * package unbundled. Import it as `import { DEV } from '../internal/dev';` from a folder of src/:
 * the production build reads that line's `DEV` as the literal `false` in the module, so that code
 * only the development branch uses is dropped too (scripts/production-build.ts).
 */
export const DEV: boolean = true;
