// rxslice/scxml: SCXML import. Its own entry point because it needs fast-xml-parser (the XML)
// and jsep (the expressions), optional peer dependencies that the core (`rxslice`) never loads.
// The machines it returns are ordinary rxslice machine definitions: install them with
// `session.install(def)` or run them with `createMachineActor(def)` from `rxslice`.

export { fromSCXML } from '../machines/scxml/from-scxml.js';
export type { FromScxmlOptions } from '../machines/scxml/from-scxml.js';
export { compileExpression } from '../machines/scxml/expression.js';
export type { CompiledExpression, ExpressionScope } from '../machines/scxml/expression.js';
export { InvalidExpressionError, ScxmlInvalidError, ScxmlUnsupportedError } from '../machines/errors.js';
export type { ScxmlLocation } from '../machines/errors.js';
