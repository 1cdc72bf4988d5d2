import type Docker from 'dockerode';
import type { CoreConfig } from '../config';
import type { CoreModule } from '../core-module';
import type { Disposable } from '../disposable';
import { learnWorkerHost } from '../docker';
import type { WorkspaceEgress } from '../egress';
import type { ModelGateway } from '../gateway';
import type { PlatformService } from '../platform';
import type { Foundations } from './foundations';

/**
 * Where workers reach core (the bridge gateway of `docker.network`; 127.0.0.1 on `host`): once known, the platform's
 * NATS server, the model gateway and the egress proxy listen there. An engine that comes later moves them there.
 */
export function workerHost(
  d: Pick<Foundations, 'log' | 'events' | 'status'> & {
    config: CoreConfig;
    docker: Docker;
    platform: PlatformService;
    gateway: ModelGateway;
    egress: WorkspaceEgress;
  },
): CoreModule {
  const { log, gateway, egress, platform } = d;
  let watch: Disposable | null = null;
  return {
    name: 'worker host',
    start: async () => {
      const host = await learnWorkerHost({
        docker: d.docker,
        network: d.config.docker.network,
        events: d.events,
        status: d.status,
        log,
        later: (address) => {
          void gateway.listen(address).catch((e: unknown) => log.warn('model gateway did not listen', { error: e }));
          void egress.listen(address).catch((e: unknown) => log.warn('egress proxy did not listen', { error: e }));
          return platform.moveTo(address);
        },
      });
      watch = host;
      await platform.start(host.now);
      if (host.now) await gateway.listen(host.now);
      if (host.now) await egress.listen(host.now);
    },
    dispose: () => watch?.dispose(),
  };
}
