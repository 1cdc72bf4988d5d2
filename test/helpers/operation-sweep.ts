import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { operations, opNames, type OpName } from '../../shared/contract';
import { ensureTestWorkerImage, removeOwnedBy, testBaseImage } from './docker';
import { serveGitRepo } from './git-http-server';
import { TEST_NETWORK } from './network';
import { startNexusProcess, type NexusProcess } from './nexus-process';
import { tempDir } from './temp-dir';
import { readUntil } from './wait';
import { validValueOf } from './valid-input';

/**
 * Every operation of the contract, called over `POST /api/rpc/<op>` with a valid input made from its
 * zod schema, against `nexus serve` (dist/cli.js) in its own process: with the vault uninitialized, with a
 * passphrase vault unlocked, sealed after a restart, and then the operations that delete or lock. An answer
 * may be any typed error (not_found, conflict, vault_locked, …); `internal` (an error nobody typed) is a bug,
 * and the test fails naming every operation that gave one. `env` is the child's environment over this
 * process's (undefined removes a variable): the caller says which configuration it is.
 */
export function describeEveryOperation(
  configuration: string,
  env: Record<string, string | undefined>,
  keychainReachable: boolean,
): void {
  describe(`every contract operation on nexus serve ${configuration}`, () => {
    const dir = tempDir('nexus-every-op-');
    const dataDir = join(dir.path, 'data');
    const workspace = `every-op-${process.pid}`;
    const session = `${workspace}/s1`;
    let repo: Awaited<ReturnType<typeof serveGitRepo>>;
    let nexus: NexusProcess;
    let childEnv: Record<string, string | undefined> = {};
    const ids = { secret: 'no-such-secret', token: 'no-such-token', agent: 'no-such-agent', task: 'no-such-task' };
    let runId = 'no-such-run';
    const start = () => startNexusProcess(dataDir, childEnv);

    /** Inputs generation cannot make meaningful: the objects this test made, and the vault's own passphrase. */
    const overrides = (): Partial<Record<OpName, unknown>> => ({
      'workspaces.get': { workspace },
      'workspaces.start': { workspace },
      'workspaces.stop': { workspace },
      'workspaces.delete': { workspace },
      'workspaces.disk': { workspace },
      'sessions.defaultAgent': { workspace },
      'sessions.setDefaultAgent': { workspace, agent: 'claude' },
      'sessions.list': { workspace },
      'sessions.create': { workspace, name: 's1' },
      'sessions.get': { session },
      'sessions.delete': { session },
      'sessions.sendMessage': { session, text: 'a message from the contract sweep' },
      'sessions.pane': { session },
      'sessions.changes': { session },
      'sessions.diff': { session },
      'sessions.push': { session },
      'sessions.setup': { session },
      'sessions.retrySetup': { session },
      'sessions.run': { session },
      'workspaces.sessionFiles': { workspace },
      'workspaces.setSessionFiles': { workspace, files: [{ path: '.env.local', content: 'A=1\n' }] },
      'agents.forWorkspace': { workspace },
      'board.list': { workspace },
      'delegation.set': { workspace, access: 'write' },
      'connect.claudeDesktop': { class: 'write' },
      'secrets.update': { id: ids.secret, name: 'every-op-renamed' },
      'secrets.delete': { id: ids.secret },
      'tokens.revoke': { id: ids.token },
      'agents.update': { id: ids.agent, tools: [] },
      'tasks.setStatus': { id: ids.task, status: 'in_progress' },
      'runs.create': { agentId: ids.agent, taskId: ids.task },
      'runs.end': { runId },
      'agent.setDefaultCredential': { kind: 'claude', secretId: ids.secret },
      'vault.init': { passphrase: PASSPHRASE },
      'vault.unlock': { passphrase: PASSPHRASE },
      'vault.changePassphrase': { currentPassphrase: PASSPHRASE, newPassphrase: PASSPHRASE },
      'workspaces.create': { name: workspace, repoUrl: repo.url },
    });

    const answers: Answer[] = [];
    // Before set-up nothing the overrides name exists: the generated inputs alone. Sealed, a delete gets the
    // generated input too (no such object), so what the test made is still there for the deletes after the unlock.
    const generatedOnly = (phase: string, op: OpName): boolean =>
      phase === 'uninitialized' || (phase === 'sealed' && DELETES_AND_LOCKS.includes(op) && !op.startsWith('vault.'));
    const call = async (phase: string, op: OpName): Promise<Answer> => {
      const input = inputOf(op, generatedOnly(phase, op) ? undefined : overrides()[op]);
      const answer = await rpc(nexus, phase, op, input);
      answers.push(answer);
      return answer;
    };
    // One call at a time, but a message waits up to 45 s for the agent's inbox (this agent never opens one):
    // it runs beside the rest of its phase.
    const sweep = async (phase: string, ops: readonly OpName[]): Promise<void> => {
      const beside = ops.includes('sessions.sendMessage') ? call(phase, 'sessions.sendMessage') : null;
      for (const op of ops) if (op !== 'sessions.sendMessage') await call(phase, op);
      await beside;
    };
    const internalsOf = (phase: string): string[] =>
      answers.filter((a) => a.phase === phase && a.code === 'internal').map((a) => `${a.op}: ${a.message}`);

    beforeAll(async () => {
      repo = await serveGitRepo(null);
      childEnv = {
        ...env,
        NEXUS_DOCKER_NETWORK: TEST_NETWORK,
        NEXUS_WORKER_BASE_IMAGE: testBaseImage(),
        // The session's agent: a process that waits, so a session starts without a model or a CLI.
        NEXUS_AGENT_COMMAND: JSON.stringify(['sh', '-c', 'exec sleep 3600', 'agent']),
      };
      await ensureTestWorkerImage();
      nexus = await start();
    }, 600_000);
    afterAll(async () => {
      await nexus?.kill('SIGTERM');
      await removeOwnedBy(dataDir);
      await repo?.close();
      dir.remove();
      const byOp = new Map<string, string[]>();
      for (const a of answers)
        byOp.set(a.op, [...(byOp.get(a.op) ?? []), `${a.phase}:${a.code}${a.ms > 2000 ? `(${a.ms} ms)` : ''}`]);
      console.info(
        `every operation ${configuration}:\n${[...byOp].map(([op, c]) => `  ${op} ${c.join(' ')}`).join('\n')}`,
      );
    }, 120_000);

    it('answers no operation with internal while the vault is not set up', async () => {
      // The configuration is the one named: core itself says whether it reaches a Secret Service.
      const status = await readUntil(
        () => rpcOk<{ keychainReachable: boolean | null }>(nexus, 'vault.status', {}),
        (v) => v.keychainReachable !== null,
        20_000,
      );
      expect(status.keychainReachable).toBe(keychainReachable);
      await sweep('uninitialized', without(opNames, ['vault.init', 'vault.unlock']));
      expect(internalsOf('uninitialized'), 'operations that answered internal').toEqual([]);
    }, 300_000);

    it('answers no operation with internal with a passphrase vault unlocked, a workspace, a secret and a session', async () => {
      const phase = 'unlocked';
      expect((await call(phase, 'vault.init')).code).toBe('ok');
      ids.secret = idOf(await rpcOk(nexus, 'secrets.create', { name: 'every-op', kind: 'generic', value: SECRET }));
      ids.token = idOf(
        (await rpcOk<{ token: unknown }>(nexus, 'tokens.create', { name: 'every-op', class: 'read' })).token,
      );
      ids.agent = idOf(await rpcOk(nexus, 'agents.create', { name: 'every-op' }));
      ids.task = idOf(await rpcOk(nexus, 'tasks.create', { title: 'every-op' }));
      runId = (await rpcOk<{ runId: string }>(nexus, 'runs.create', { agentId: ids.agent })).runId;
      expect((await call(phase, 'workspaces.create')).code).toBe('ok');
      const ws = await readUntil(
        () => rpcOk<{ status: string; reason?: string }>(nexus, 'workspaces.get', { workspace }),
        (w) => w.status === 'running' || w.status === 'error',
        240_000,
      );
      expect(ws, 'the workspace the session ops act on').toMatchObject({ status: 'running' });
      await call(phase, 'sessions.create');
      const called = new Set(answers.filter((a) => a.phase === phase).map((a) => a.op));
      await sweep(phase, without(opNames, [...DELETES_AND_LOCKS, ...called]));
      expect(internalsOf(phase), 'operations that answered internal').toEqual([]);
    }, 600_000);

    it('answers no operation with internal while the passphrase vault is sealed after a restart', async () => {
      await nexus.kill('SIGTERM');
      nexus = await start();
      expect(await rpcOk(nexus, 'vault.status', {})).toMatchObject({ state: 'locked', mode: 'passphrase' });
      await sweep('sealed', without(opNames, ['vault.unlock']));
      expect(internalsOf('sealed'), 'operations that answered internal').toEqual([]);
    }, 300_000);

    it('answers no delete or lock with internal once unlocked again, each on what the test made', async () => {
      expect((await call('deletes', 'vault.unlock')).code).toBe('ok');
      await sweep('deletes', DELETES_AND_LOCKS);
      expect(internalsOf('deletes'), 'operations that answered internal').toEqual([]);
      // Every operation was called in each phase but the ones a phase leaves out on purpose.
      for (const phase of ['uninitialized', 'unlocked', 'sealed']) {
        const called = new Set(answers.filter((a) => a.phase === phase || a.phase === 'deletes').map((a) => a.op));
        const skipped =
          phase === 'uninitialized' ? ['vault.init', 'vault.unlock'] : phase === 'sealed' ? ['vault.unlock'] : [];
        expect(without(opNames, [...called, ...skipped]), `not called in ${phase}`).toEqual([]);
      }
    }, 300_000);
  });
}

const PASSPHRASE = 'every operation sweep passphrase';
const SECRET = 'every-op-secret-value-0123456789';

/** Last, in this order: each would take away what the others act on (the session before its workspace; the lock last). */
const DELETES_AND_LOCKS: readonly OpName[] = [
  'runs.end',
  'sessions.delete',
  'workspaces.stop',
  'workspaces.delete',
  'workspaces.removeOrphan',
  'secrets.delete',
  'tokens.revoke',
  'engines.remove',
  'phone.revoke',
  'remote.revoke',
  'remote.revokeClient',
  'vault.changePassphrase',
  'vault.lock',
];

interface Answer {
  phase: string;
  op: OpName;
  code: string;
  message: string;
  ms: number;
}

const without = (all: readonly OpName[], left: readonly string[]): OpName[] => all.filter((o) => !left.includes(o));

/** The op's override, or its generated minimal input; either must pass the contract's own schema. */
function inputOf(op: OpName, override: unknown): unknown {
  const schema = operations[op].input;
  const candidates = override !== undefined ? [override] : [validValueOf(schema), validValueOf(schema, true)];
  const valid = candidates.find((c) => schema.safeParse(c).success);
  if (valid === undefined) throw new Error(`no valid input for ${op}: ${JSON.stringify(candidates)}`);
  return valid;
}

/** One call as the operator; an answer that is not the wire shape (no JSON, a dropped connection, no answer in time) counts as internal. */
async function rpc(nexus: NexusProcess, phase: string, op: OpName, input: unknown): Promise<Answer> {
  const started = performance.now();
  const ms = (): number => Math.round(performance.now() - started);
  try {
    const res = await fetch(`${nexus.url}/api/rpc/${op}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${nexus.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
      signal: AbortSignal.timeout(90_000),
    });
    const text = await res.text();
    const body = JSON.parse(text) as { result?: unknown; error?: { code: string; message: string } };
    if (body.error) return { phase, op, code: body.error.code, message: body.error.message, ms: ms() };
    return { phase, op, code: 'ok', message: '', ms: ms() };
  } catch (e) {
    return { phase, op, code: 'internal', message: `no wire answer: ${(e as Error).message}`, ms: ms() };
  }
}

async function rpcOk<T = unknown>(nexus: NexusProcess, op: OpName, input: unknown): Promise<T> {
  return nexus.rpc<T>(op, input);
}

const idOf = (r: unknown): string => {
  const id = (r as { id?: unknown }).id;
  if (typeof id !== 'string') throw new Error(`no id in ${JSON.stringify(r)}`);
  return id;
};
