import { events, type EventMessage, type EventName, type EventPayload } from '../../shared/contract';
import type { Disposable } from './disposable';
import type { Logger } from './log';
import type { Redactor } from './redact';

export type EventListener = (event: EventMessage) => void;

/**
 * Push events from core to every transport. Payloads are checked against the contract and
 * redacted here, once, so no subscriber can leak what the bus did not.
 */
export class EventBus {
  private readonly listeners = new Set<EventListener>();
  /** `log` hears a failing subscriber (absent: only in tests that build a bare bus). */
  constructor(
    private readonly redactor: Redactor,
    private readonly log?: Pick<Logger, 'warn'>,
  ) {}

  emit<K extends EventName>(name: K, payload: EventPayload<K>): void {
    const parsed = events[name].parse(payload) as EventPayload<K>;
    const message = { name, payload: this.redactor.value(parsed) } as EventMessage;
    for (const listener of this.listeners) {
      try {
        listener(message);
      } catch (error) {
        // A failing subscriber must not stop delivery to the others; the log says which event it failed on.
        this.log?.warn('an event subscriber failed', { event: name, error });
      }
    }
  }

  subscribe(listener: EventListener): Disposable {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  }

  get size(): number {
    return this.listeners.size;
  }
}
