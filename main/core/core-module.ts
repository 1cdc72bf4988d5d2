import { operations } from '../../shared/contract';
import type { Disposable } from './disposable';
import { mergeHandlers, type Handlers } from './handlers';
import type { Logger } from './log';

/**
 * One module of core as the composition root sees it (docs/architecture.md, "The composition root"): the operations
 * it answers, what it listens to, what it starts and what it closes. Building one does nothing anyone can observe:
 * its subscriptions are made by `react` and its servers, watches and timers by `start`, both from core's start.
 */
export interface CoreModule {
  readonly name: string;
  readonly handlers?: Partial<Handlers>;
  /** Its subscriptions. Every module's are made before any module starts, so none misses what a start emits. */
  react?(): Disposable[];
  start?(): void | Promise<void>;
  /** Closes what it built and started. Called once, in the reverse order of the list, started or not. */
  dispose?(): void | Promise<void>;
}

/**
 * Core's modules in the order they start: each operation of the contract answered by exactly one of them (a second
 * one, or none, throws here, when core is built).
 */
export class CoreModules {
  readonly handlers: Handlers;
  private readonly subscriptions: Disposable[] = [];
  private disposed: Promise<void> | null = null;

  constructor(
    private readonly list: readonly CoreModule[],
    private readonly log: Pick<Logger, 'warn'>,
  ) {
    const merged = mergeHandlers(...list.map((m) => m.handlers ?? {})) as Partial<Handlers>;
    const unanswered = Object.keys(operations).filter((op) => !(op in merged));
    if (unanswered.length > 0) throw new Error(`No module answers ${unanswered.join(', ')}: each operation has one.`);
    this.handlers = merged as Handlers;
  }

  /** Makes every module's subscriptions, then starts each in order; a failed start closes everything and throws. */
  async start(): Promise<void> {
    try {
      for (const m of this.list) this.subscriptions.push(...(m.react?.() ?? []));
      for (const m of this.list) await m.start?.();
    } catch (e) {
      await this.dispose();
      throw e;
    }
  }

  /** Ends the subscriptions, then closes the modules in reverse order; a module that fails to close is logged. */
  dispose(): Promise<void> {
    this.disposed ??= this.closeAll();
    return this.disposed;
  }

  private async closeAll(): Promise<void> {
    for (const s of this.subscriptions.splice(0).reverse()) await this.attempt('a subscription', () => s.dispose());
    for (const m of [...this.list].reverse()) if (m.dispose) await this.attempt(m.name, () => m.dispose!());
  }

  private async attempt(what: string, close: () => void | Promise<void>): Promise<void> {
    try {
      await close();
    } catch (error) {
      this.log.warn('closing a core module failed', { module: what, error });
    }
  }
}
