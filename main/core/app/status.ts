import type { AppStatus } from '../../../shared/contract';
import type { EventBus } from '../events';

type Component = keyof AppStatus;

/** Current state of the vault, Docker and NATS; every change is pushed as `app.status`. */
export class StatusBoard {
  private current: AppStatus = {
    vault: { state: 'uninitialized', reason: 'The vault has not been set up yet.', mode: null },
    docker: { state: 'unavailable', reason: 'Not checked yet.' },
    nats: { state: 'stopped', reason: 'Platform tools are not running.' },
  };
  constructor(private readonly events: EventBus) {}

  /** A copy the caller may keep or change: every component is a flat object of primitives, so one level is all of it. */
  get(): AppStatus {
    const { vault, docker, nats } = this.current;
    return { vault: { ...vault }, docker: { ...docker }, nats: { ...nats } };
  }

  set<C extends Component>(component: C, value: AppStatus[C]): void {
    const before = this.current[component];
    if (JSON.stringify(before) === JSON.stringify(value)) return;
    this.current = { ...this.current, [component]: value };
    this.events.emit('app.status', this.get());
  }
}
