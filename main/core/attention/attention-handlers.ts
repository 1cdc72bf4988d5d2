import type { Handlers } from '../handlers';
import type { AttentionService } from './attention-service';

/** The attention.* operations: what needs the operator, across the fleet. */
export function attentionHandlers(
  attention: AttentionService,
): Pick<Handlers, 'attention.get' | 'attention.summary' | 'attention.sessions'> {
  return {
    'attention.get': () => attention.get(),
    'attention.summary': () => attention.summary(),
    'attention.sessions': (input) => attention.sessions(input),
  };
}
