import { RxSliceError } from '../internal/errors';
import { quote } from '../internal/quote';

/**
 * Thrown for a malformed channel declaration, or an event published to a channel it is not part of.
 * (Its own module, so that the session's channel runtime and the reducers that name a channel
 * need not import `defineChannel`, which carries that runtime.)
 */
export class InvalidChannelError extends RxSliceError {
  override readonly name = 'InvalidChannelError';
  constructor(readonly channel: string, reason: string) {
    super('INVALID_CHANNEL', `Channel ${quote(channel)}: ${reason}`);
  }
}
