import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { CHECKPOINT_TAKE } from '../../../shared/git-scripts';
import {
  RELAY_CHECKPOINT_OUTPUT_MAX,
  RELAY_TIMED_OUT,
  RelayCheckpoint,
  type RelayCheckpointAnswer,
} from '../../../shared/relay-checkpoint';

/**
 * The relay's third job: a session's checkpoint at core's ask (`nexus.checkpoints.<workspaceId>`, shared/relay-checkpoint.ts),
 * taken by CHECKPOINT_TAKE (shared/git-scripts.ts) as `sh -c` here, with no `docker exec` per turn. Only core may
 * publish on the subject and the relay's user may answer only under `nexus.checkpoint-replies.<workspaceId>`
 * (main/core/platform/permissions.ts): a request whose reply subject is elsewhere gets no answer. It runs nothing but
 * the script its own bundle holds, and only when the request names that text's SHA-256 (else `stale`: core takes its
 * exec). The script runs in its own process group, killed whole when its time is up (exit 124, as `timeout` does).
 */
export function serveCheckpoints(nc: NatsConnection, workspaceId: string): Subscription {
  const replies = `nexus.checkpoint-replies.${workspaceId}.`;
  const sha = createHash('sha256').update(CHECKPOINT_TAKE).digest('hex');
  return nc.subscribe(`nexus.checkpoints.${workspaceId}`, {
    callback: (err, msg) => {
      if (err || !msg.reply?.startsWith(replies)) return;
      const answer = (a: RelayCheckpointAnswer): void => void msg.respond(JSON.stringify(a));
      let input: RelayCheckpoint;
      try {
        input = RelayCheckpoint.parse(JSON.parse(msg.string()));
      } catch {
        return answer({ bad_input: 'the relay got a checkpoint request it cannot read' });
      }
      if (input.scriptSha256 !== sha) return answer({ stale: true });
      const args = [input.worktree, input.repo, input.ref, input.message, input.prev ?? ''];
      void runScript(CHECKPOINT_TAKE, args, input.timeoutMs).then(answer);
    },
  });
}

/** `sh -c script sh args…`, each output's first RELAY_CHECKPOINT_OUTPUT_MAX characters kept. */
function runScript(
  script: string,
  args: string[],
  timeoutMs: number,
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', script, 'sh', ...args], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const out = { stdout: '', stderr: '' };
    const keep = (name: 'stdout' | 'stderr') => (d: Buffer) => {
      if (out[name].length < RELAY_CHECKPOINT_OUTPUT_MAX)
        out[name] = (out[name] + d.toString('utf8')).slice(0, RELAY_CHECKPOINT_OUTPUT_MAX);
    };
    child.stdout.on('data', keep('stdout'));
    child.stderr.on('data', keep('stderr'));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    const done = (exitCode: number, why = ''): void => {
      clearTimeout(timer);
      resolve({ exitCode, stdout: out.stdout, stderr: (why || out.stderr).slice(0, RELAY_CHECKPOINT_OUTPUT_MAX) });
    };
    child.on('error', (e) => done(127, `the relay could not start sh: ${e.message}`));
    child.on('close', (code) =>
      timedOut ? done(RELAY_TIMED_OUT, `the checkpoint did not finish within ${timeoutMs} ms`) : done(code ?? 1),
    );
  });
}
