import { describe, expect, it } from 'vitest';
import { formatIssues, isRxSliceError, RxSliceError } from '../../src/internal/errors';

describe('RxSliceError', () => {
  it('carries a code, a literal name and a cause', () => {
    const cause = new Error('root');
    const e = new RxSliceError('SOME_CODE', 'message', { cause });
    expect(e.code).toBe('SOME_CODE');
    expect(e.name).toBe('RxSliceError');
    expect(e.cause).toBe(cause);
    expect(isRxSliceError(e)).toBe(true);
  });

  it('recognises errors from another package copy by shape, not instanceof', () => {
    const foreign = Object.assign(new Error('x'), { code: 'INVALID_EVENT' });
    expect(isRxSliceError(foreign)).toBe(true);
    expect(isRxSliceError(new Error('plain'))).toBe(false);
    expect(isRxSliceError('INVALID_EVENT')).toBe(false);
  });

  it('formats at most five issues with their paths', () => {
    const issues = Array.from({ length: 7 }, (_, i) => ({ code: 'c', path: ['a', i], message: `m${i}` }));
    const text = formatIssues(issues);
    expect(text).toContain('a.0: m0');
    expect(text).toContain('and 2 more');
    expect(formatIssues([{ code: 'c', path: [], message: 'bad' }])).toBe('(root): bad');
  });
});
