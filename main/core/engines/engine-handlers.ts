import type { Handlers } from '../handlers';
import type { EngineService } from './engine-service';

type EngineOps = 'engines.list' | 'engines.add' | 'engines.confirmHostKey' | 'engines.remove' | 'engines.contexts';

/** The engines.* operations, each a thin call into the engine service. */
export function engineHandlers(service: EngineService): Pick<Handlers, EngineOps> {
  return {
    'engines.list': async () => ({ engines: await service.list() }),
    'engines.add': (input) => service.add(input),
    'engines.confirmHostKey': (input) => service.confirmHostKey(input.engine, input.fingerprint),
    'engines.remove': (input) => service.remove(input.engine),
    'engines.contexts': () => service.contexts(),
  };
}
