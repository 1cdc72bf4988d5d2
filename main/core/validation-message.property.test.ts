import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { opNames, operations, type OpName } from '../../shared/contract';
import { NexusError } from '../../shared/errors';
import type { AuditLog } from './audit/audit-log';
import { Dispatcher } from './dispatch';
import { operatorContext, type Handlers } from './handlers';
import type { Logger } from './log';
import { Redactor } from './redact';

// Issue 26, item 6: a validation error names the field it is about (the redactor used to read
// `key: "decision"` as a secret assignment and answer `Unrecognized key: "[REDACTED]"`), and a
// secret in the input is still never echoed. No handler runs: every input here is refused.
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };
const audit = { record() {} } as unknown as AuditLog;
const refusal = async (redactor: Redactor, op: string, input: unknown): Promise<string> => {
  const e = await new Dispatcher({} as Handlers, { redactor, log: quiet, audit })
    .call(op, input, operatorContext('http'))
    .then(
      () => null,
      (err: unknown) => err,
    );
  expect(e).toBeInstanceOf(NexusError);
  expect((e as NexusError).code).toBe('bad_request');
  return (e as NexusError).message;
};

/** Does the contract itself refuse `key` in this operation's input as unknown? */
const refusesAsUnknown = (op: OpName, input: Record<string, unknown>, key: string): boolean => {
  const parsed = operations[op].input.safeParse(input);
  return !parsed.success && parsed.error.issues.some((i) => i.code === 'unrecognized_keys' && i.keys.includes(key));
};

const strictOps = opNames.filter((op) => refusesAsUnknown(op, { zzProbe: 1 }, 'zzProbe'));

/** Names a field could have: secret-sounding words included (they are names, not secrets). */
const fieldName = fc.oneof(
  fc.constantFrom('decision', 'key', 'token', 'apiKey', 'secret', 'password', 'passphrase', 'github_token', 'KEY'),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,30}$/),
  // Any text without the shapes a secret assignment has (`NAME=value`, `NAME: value`).
  fc.string({ minLength: 1, maxLength: 30 }).filter((s) => !/[:=\s]/.test(s)),
);

const alnum = (min: number, max: number) =>
  fc.stringMatching(new RegExp(`^[A-Za-z0-9]{${min},${max}}$`)) as fc.Arbitrary<string>;
/** A secret as core meets one: a vault value it was told about, or a provider token by its shape. */
const secret = fc.oneof(
  alnum(12, 40).map((s) => ({ value: `vault-${s}`, registered: true })),
  alnum(36, 40).map((s) => ({ value: `ghp_${s}`, registered: false })),
  alnum(24, 40).map((s) => ({ value: `sk-ant-api03-${s}`, registered: false })),
  alnum(24, 30).map((s) => ({ value: `glpat-${s}`, registered: false })),
);

describe('validation errors', () => {
  it('answers permissions.decide with an unknown key by naming the key', async () => {
    const message = await refusal(new Redactor(), 'permissions.decide', {
      id: 'perm_1',
      behavior: 'allow',
      decision: 'allow',
    });
    expect(message).toBe('Invalid input for permissions.decide: unknown field "decision"');
  });

  it('names a secret-sounding field whose value is wrong instead of masking the message', async () => {
    const message = await refusal(new Redactor(), 'workspaces.create', { name: 'ok', repoUrl: 'x', secretId: 3 });
    expect(message).toContain('field "secretId" — expected string, received number');
  });

  it('names any unknown key in any operation that refuses unknown keys', async () => {
    expect(strictOps.length).toBeGreaterThan(20);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...strictOps), fieldName, async (op, key) => {
        const input = { [key]: 'x' };
        fc.pre(key !== '__proto__' && refusesAsUnknown(op, input, key));
        const message = await refusal(new Redactor(), op, input);
        expect(message.startsWith(`Invalid input for ${op}: `), message).toBe(true);
        expect(message, `${op} ${JSON.stringify(key)}`).toContain(JSON.stringify(key));
      }),
      { numRuns: 500, seed: 26 },
    );
  });

  it('never echoes a secret, wherever in the input it is', async () => {
    const place = fc.constantFrom('unknown key value', 'unknown key name', 'known field value', 'nested');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...strictOps), secret, place, async (op, s, where) => {
        const redactor = new Redactor();
        if (s.registered) redactor.addSecret(s.value);
        const known = Object.keys((operations[op].input as { shape?: object }).shape ?? {})[0] ?? 'zzKnown';
        const input =
          where === 'unknown key value'
            ? { zzExtra: s.value }
            : where === 'unknown key name'
              ? { [s.value]: 1 }
              : where === 'known field value'
                ? { [known]: { not: [s.value] }, zzExtra: 1 }
                : { zzExtra: { deep: [{ [s.value]: s.value }] } };
        const message = await refusal(redactor, op, input);
        expect(message, `${op} ${where}`).not.toContain(s.value);
      }),
      { numRuns: 500, seed: 26 },
    );
  });
});
