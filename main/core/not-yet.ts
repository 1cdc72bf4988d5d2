import { NexusError } from '../../shared/errors';

/** Handler for an operation whose service has not landed yet: a clear, typed refusal. */
export const notYet =
  (what: string) =>
  (): never => {
    throw new NexusError('unavailable', `${what} is not available in this build yet.`);
  };
