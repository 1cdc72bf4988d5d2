import { events, type EventMessage, type EventName, type EventPayload } from '../../shared/contract';
import type { Disposable } from './disposable';
import type { Redactor } from './redact';

export type EventListener = (event: EventMessage) => void;

/**
 * Push events from core to every transport. Payloads are checked against the contract and
 * redacted here, once, so no subscriber can leak what the bus did not.
 */
export class EventBus {
  private readonly listeners = new Set<EventListener>();
  constructor(private readonly redactor: Redactor) {}

  emit<K extends EventName>(name: K, payload: EventPayload<K>): void {
    const parsed = events[name].parse(payload) as EventPayload<K>;
    const message = { name, payload: this.redactor.value(parsed) } as EventMessage;
    for (const listener of this.listeners) {
      try {
        listener(message);
      } catch {
        // A failing subscriber must not stop delivery to the others.
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
