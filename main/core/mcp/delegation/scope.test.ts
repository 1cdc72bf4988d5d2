import { describe, expect, it } from 'vitest';
import type { OpName } from '../../../../shared/contract';
import { NexusError } from '../../../../shared/errors';
import { operatorContext, type CallContext } from '../../handlers';
import { delegatedScope, type DelegatedResolvers } from './scope';

const workspaces: Record<string, string> = { alpha: 'w-alpha', beta: 'w-beta' };
const sessions: Record<string, string> = { 'alpha/one': 'w-alpha', 'beta/two': 'w-beta' };
const resolvers: DelegatedResolvers = {
  workspaceOf: (ref) => {
    const id = workspaces[ref];
    if (!id) throw new NexusError('not_found', `No workspace ${ref}.`);
    return { id, name: ref, containerId: `c-${ref}`, running: true };
  },
  sessionWorkspaceOf: (ref) => {
    const id = sessions[ref];
    if (!id) throw new NexusError('not_found', `No session ${ref}.`);
    return id;
  },
};
const calls: string[] = [];
const contexts: CallContext[] = [];
const scope = delegatedScope({ workspaceId: 'w-alpha', allWorkspaces: false }, resolvers);
// As the dispatcher runs it: around the handler, which records what reached it.
const dispatch = (op: OpName, input: unknown, c: CallContext): Promise<unknown> =>
  scope
    ? scope(op, input, c, async (i, cc) => {
        calls.push(`${op} ${JSON.stringify(i)}`);
        contexts.push(cc);
        return {};
      })
    : Promise.reject(new Error('an unwidened credential has a scope'));
const ctx = operatorContext('mcp');
const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: NexusError) => e.code,
  );

describe("a delegated credential's scope", () => {
  it('lets its own workspace and sessions through', async () => {
    expect(await code(dispatch('sessions.create', { workspace: 'alpha' }, ctx))).toBe('ok');
    expect(await code(dispatch('sessions.sendMessage', { session: 'alpha/one', text: 'hi' }, ctx))).toBe('ok');
  });

  it('hands the workspace it resolved on to the operation, so the service does not look it up again', async () => {
    contexts.length = 0;
    await dispatch('sessions.create', { workspace: 'alpha', name: 'helper' }, ctx);
    expect(contexts[0]?.workspace).toMatchObject({ id: 'w-alpha', name: 'alpha', running: true });
  });

  it('has no scope once widened to all workspaces', () => {
    expect(delegatedScope({ workspaceId: 'w-alpha', allWorkspaces: true }, resolvers)).toBeUndefined();
  });

  it('refuses another workspace and one that does not exist alike: existence is not probed', async () => {
    calls.length = 0;
    expect(await code(dispatch('sessions.create', { workspace: 'beta' }, ctx))).toBe('forbidden');
    expect(await code(dispatch('sessions.create', { workspace: 'gamma' }, ctx))).toBe('forbidden');
    expect(await code(dispatch('sessions.delete', { session: 'beta/two' }, ctx))).toBe('forbidden');
    expect(await code(dispatch('sessions.delete', { session: 'gamma/three' }, ctx))).toBe('forbidden');
    expect(await code(dispatch('sessions.list', { workspace: 'gamma' }, ctx))).toBe('forbidden');
    expect(calls).toEqual([]);
  });
});
