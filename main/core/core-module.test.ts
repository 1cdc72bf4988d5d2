import { describe, expect, it } from 'vitest';
import { operations } from '../../shared/contract';
import { CoreModules, type CoreModule } from './core-module';
import { toDisposable } from './disposable';
import type { Handlers } from './handlers';

const silent = { warn: () => undefined };
const answer = () => Promise.reject(new Error('not called here'));
/** A module answering every operation of the contract but `except`, so a list is complete with it. */
const contract = (...except: string[]): CoreModule => ({
  name: 'contract',
  handlers: Object.fromEntries(
    Object.keys(operations)
      .filter((op) => !except.includes(op))
      .map((op) => [op, answer]),
  ) as Partial<Handlers>,
});

/** A module that writes each step of its life to `steps`. */
function recorded(name: string, steps: string[], o: { failStart?: boolean; failDispose?: boolean } = {}): CoreModule {
  return {
    name,
    react: () => {
      steps.push(`${name}.react`);
      return [toDisposable(() => void steps.push(`${name}.unsubscribe`))];
    },
    start: () => {
      steps.push(`${name}.start`);
      if (o.failStart) throw new Error(`${name} would not start`);
    },
    dispose: () => {
      steps.push(`${name}.dispose`);
      if (o.failDispose) throw new Error(`${name} would not close`);
    },
  };
}

describe('core modules', () => {
  it('makes every subscription first, starts in order, and closes in reverse', async () => {
    const steps: string[] = [];
    const modules = new CoreModules(
      [contract(), recorded('a', steps), recorded('b', steps), recorded('c', steps)],
      silent,
    );
    expect(steps).toEqual([]);
    await modules.start();
    expect(steps).toEqual(['a.react', 'b.react', 'c.react', 'a.start', 'b.start', 'c.start']);
    steps.length = 0;
    await modules.dispose();
    await modules.dispose();
    expect(steps).toEqual(['c.unsubscribe', 'b.unsubscribe', 'a.unsubscribe', 'c.dispose', 'b.dispose', 'a.dispose']);
  });

  it('closes everything built when a start fails, and rethrows', async () => {
    const steps: string[] = [];
    const modules = new CoreModules(
      [contract(), recorded('a', steps), recorded('b', steps, { failStart: true }), recorded('c', steps)],
      silent,
    );
    await expect(modules.start()).rejects.toThrow('b would not start');
    expect(steps.slice(-6)).toEqual([
      'c.unsubscribe',
      'b.unsubscribe',
      'a.unsubscribe',
      'c.dispose',
      'b.dispose',
      'a.dispose',
    ]);
    expect(steps).not.toContain('c.start');
  });

  it('goes on closing the others when one fails to close, and says which', async () => {
    const steps: string[] = [];
    const warned: unknown[] = [];
    const modules = new CoreModules([contract(), recorded('a', steps), recorded('b', steps, { failDispose: true })], {
      warn: (_m: string, f?: unknown) => void warned.push(f),
    });
    await modules.start();
    await modules.dispose();
    expect(steps.slice(-2)).toEqual(['b.dispose', 'a.dispose']);
    expect(warned).toMatchObject([{ module: 'b' }]);
  });

  it('refuses two modules answering one operation', () => {
    expect(() => new CoreModules([contract(), { name: 'b', handlers: { 'app.info': answer } }], silent)).toThrow(
      'Two handlers for operation "app.info"',
    );
  });

  it('refuses a list in which no module answers an operation', () => {
    expect(() => new CoreModules([contract('app.info', 'vault.init')], silent)).toThrow(
      'No module answers app.info, vault.init',
    );
  });
});
