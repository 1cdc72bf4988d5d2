import { describe, expect, it } from 'vitest';
import { NexusError } from '../../shared/errors';
import { expectInternal } from '../../test/helpers/internal-alarm';
import type { AuditLog } from './audit/audit-log';
import { Dispatcher } from './dispatch';
import { operatorContext, type Handlers } from './handlers';
import type { Logger } from './log';
import { Redactor } from './redact';

// Issue 39: `internal` is an alarm, not an answer. Every `internal` a core gives in a test is heard
// (test/helpers/internal-alarm-setup.ts) and fails that test unless the test says it expected it.
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };
const audit = { record() {} } as unknown as AuditLog;
const dispatcherWith = (handler: () => unknown): Dispatcher =>
  new Dispatcher({ 'app.info': handler } as unknown as Handlers, { redactor: new Redactor(), log: quiet, audit });
const codeOf = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'ok',
    (e: unknown) => (e as NexusError).code,
  );

describe('the internal-answer alarm', () => {
  it('hears a handler that throws an untyped error, answered internal with a log reference', async () => {
    const d = dispatcherWith(() => {
      throw new TypeError('a bug in the handler');
    });
    expect(await codeOf(d.call('app.info', {}, operatorContext('http')))).toBe('internal');
    const heard = expectInternal('app.info');
    expect(heard).toHaveLength(1);
    expect(heard[0]!.message).toMatch(/^Internal error in app\.info \(log reference [0-9a-f]{8}\)\.$/);
  });

  it('hears a handler that throws a NexusError typed internal', async () => {
    const d = dispatcherWith(() => Promise.reject(new NexusError('internal', 'the helper failed')));
    expect(await codeOf(d.call('app.info', {}, operatorContext('http')))).toBe('internal');
    expect(expectInternal(/^app\./)).toEqual([{ operation: 'app.info', message: 'the helper failed' }]);
  });

  it('does not hear typed errors: expecting an internal where none was given fails', async () => {
    const d = dispatcherWith(() => {
      throw new NexusError('not_found', 'No such thing.');
    });
    expect(await codeOf(d.call('app.info', {}, operatorContext('http')))).toBe('not_found');
    expect(await codeOf(d.call('app.nothing', {}, operatorContext('http')))).toBe('not_found');
    expect(() => expectInternal('app.info')).toThrow(/expected an internal answer of app\.info; heard: none/);
  });
});
