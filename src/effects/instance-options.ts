import type { EffectInstanceOptions } from './define-effect';
import { InvalidEffectOptionsError } from './errors';
import { InvalidRetryPolicyError, RetryPolicy, type RetrySpec } from './retry-policy';
import { quote } from '../internal/quote';

/**
 * @internal Checks an instance's own options and returns them as frozen plain data (`retry` as its
 * spec). Also reads options that arrive on an effect made elsewhere (by hand, from JSON).
 * @throws {@link InvalidEffectOptionsError}
 */
export function instanceOptions(type: string, own: unknown): EffectInstanceOptions {
  if (own === null || typeof own !== 'object' || Array.isArray(own)) {
    throw new InvalidEffectOptionsError(type, `expected an object such as { retry, timeoutMs }, got ${own === null ? 'null' : Array.isArray(own) ? 'an array' : typeof own}`);
  }
  const { retry, timeoutMs } = own as { retry?: unknown; timeoutMs?: unknown };
  const unknownKeys = Object.keys(own).filter((k) => k !== 'retry' && k !== 'timeoutMs');
  if (unknownKeys.length > 0) throw new InvalidEffectOptionsError(type, `unknown option(s) ${unknownKeys.map((k) => `${quote(k)}`).join(', ')}; concurrency, compensate and onSuccess belong to defineEffect`);
  if (timeoutMs !== undefined && !(typeof timeoutMs === 'number' && timeoutMs > 0 && Number.isFinite(timeoutMs))) {
    throw new InvalidEffectOptionsError(type, `timeoutMs must be a finite number > 0 (got ${String(timeoutMs)}); leave it out to use the effect type's`);
  }
  let spec: RetrySpec | undefined;
  if (retry !== undefined) {
    if (retry === null || typeof retry !== 'object') throw new InvalidEffectOptionsError(type, `retry must be a RetryPolicy or a retry spec (got ${retry === null ? 'null' : typeof retry})`);
    const policySpec = typeof (retry as Partial<RetryPolicy>).delayMs === 'function' ? (retry as RetryPolicy).spec : (retry as RetrySpec);
    if (policySpec === undefined) {
      throw new InvalidEffectOptionsError(type, 'this retry policy cannot travel as data (it holds a random function, or was written by hand); build it with RetryPolicy.exponential({ seed }), .fixed or .none');
    }
    try {
      spec = RetryPolicy.from(policySpec).spec as RetrySpec;
    } catch (error) {
      if (error instanceof InvalidRetryPolicyError) throw new InvalidEffectOptionsError(type, `retry: ${error.message}`, { cause: error });
      throw error;
    }
  }
  return Object.freeze({ ...(spec === undefined ? {} : { retry: spec }), ...(timeoutMs === undefined ? {} : { timeoutMs }) });
}
