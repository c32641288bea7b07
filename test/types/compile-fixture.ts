import { join, resolve } from 'node:path';
import ts from 'typescript';

/** The repository's root (where tsconfig.json is). */
export const root = resolve(__dirname, '../..');

/**
 * Type-checks `source` as if it were the file `path` (relative to the repository root; it is
 * never written) under the repository's tsconfig, with the TypeScript compiler API. Answers the
 * diagnostics of that file: the 0-based line of each and its flattened message text.
 */
export function compileFixture(path: string, source: string): { line: number; text: string }[] {
  const fixturePath = join(root, path);
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (config === undefined) throw new Error('tsconfig.json could not be read');
  const host = ts.createCompilerHost(config.options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, onError, create) =>
    resolve(file) === fixturePath ? ts.createSourceFile(file, source, language) : getSourceFile(file, language, onError, create);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (file) => resolve(file) === fixturePath || fileExists(file);
  const program = ts.createProgram({ rootNames: [fixturePath], options: { ...config.options, noEmit: true }, host });
  const compiled = program.getSourceFile(fixturePath);
  if (compiled === undefined) throw new Error(`${path} was not compiled`);
  return ts.getPreEmitDiagnostics(program, compiled).map((d) => ({
    line: d.start === undefined ? -1 : compiled.getLineAndCharacterOfPosition(d.start).line,
    text: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  }));
}
