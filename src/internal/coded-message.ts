/**
 * The production build's message for error code `code` (`E1`, `E2`, ...): the code, the facts of
 * this occurrence (names, seqs, what was given) and the link to its full text in docs/errors.md,
 * e.g. `rxslice E2: "chat/sent"; see https://.../docs/errors.md#e2`.
 * Used only as the first branch of `!DEV ? codedMessage(code, facts) : full`;
 * scripts/errors-doc.ts collects those pairs into docs/errors.md, and a test keeps it current.
 */
export const codedMessage = (code: `E${number}`, facts: string): string =>
  `rxslice ${code}: ${facts}; see https://github.com/rxslice/rxslice/blob/main/docs/errors.md#${code.toLowerCase()}`;
