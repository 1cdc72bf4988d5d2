import type { PushResult } from '../../../shared/contract/sessions';
import { NexusError } from '../../../shared/errors';
import type { Redactor } from '../redact';
import { credentialPayload } from '../docker';
import { checkSecretHost, credentialHost, gitUsername, type SecretSource } from '../workspaces';
import { compareLink } from './compare-link';
import type { ShipTarget } from './ship-git';

/**
 * "Push branch": the session's branch to the workspace's remote (`origin`, the clone's URL) with
 * the workspace's vault secret, handed to git through the same credential helper as the clone
 * (`nexus-with-credential` reads it on stdin; it is never in argv, Env, logs or results).
 */

export interface PushExec {
  exec(
    workspace: ShipTarget,
    argv: string[],
    opts?: { stdin?: string; env?: Record<string, string>; timeoutMs?: number; onStderr?: (text: string) => void },
  ): Promise<{ exitCode: number; stdout: string; stderr: string }>;
}

export interface PushTarget {
  sessionId: string;
  branch: string;
  worktree: string;
  workspace: ShipTarget & { repoUrl: string; secretId: string | null };
}

export interface PushDeps {
  exec: PushExec;
  secrets: SecretSource;
  redactor: Redactor;
  repoDir: string;
  timeoutMs?: number;
}

const SCRIPT = `
set -u
repo=$1; wt=$2; br=$3
cd "$wt" 2>/dev/null || { echo "The session's worktree is gone." >&2; exit 3; }
head=$(git rev-parse -q --verify "refs/heads/$br") || { echo "The session's branch $br is gone." >&2; exit 3; }
base=$(git -C "$repo" symbolic-ref --quiet --short HEAD) || base=
printf 'nexus-push %s %s\\n' "$head" "$base"
exec nexus-with-credential git push --progress --porcelain origin "refs/heads/$br:refs/heads/$br"
`;

/** git's progress lines (`Writing objects:  42% (21/50)`) as a step and a fraction. */
export function progressOf(line: string): { step: string; fraction?: number } | null {
  const m = /^(?:remote: )?([A-Z][A-Za-z ]+):\s+(\d{1,3})%/.exec(line.trim());
  if (m) return { step: m[1] ?? '', fraction: Math.min(1, Number(m[2]) / 100) };
  const plain = /^(?:remote: )?([A-Z][A-Za-z ]+): \d+, done\.$/.exec(line.trim());
  return plain ? { step: plain[1] ?? '' } : null;
}

/** The porcelain status line for our ref: flag and summary, e.g. `!` and `[rejected] (non-fast-forward)`. */
export function porcelainRef(stdout: string, branch: string): { flag: string; summary: string } | null {
  const ref = `refs/heads/${branch}:refs/heads/${branch}`;
  for (const line of stdout.split('\n')) {
    const [flag = '', name = '', summary = ''] = line.split('\t');
    if (name === ref && flag.length === 1) return { flag, summary };
  }
  return null;
}

export class ShipPusher {
  constructor(private readonly deps: PushDeps) {}

  async push(t: PushTarget, progress: (p: { step: string; fraction?: number }) => void): Promise<PushResult> {
    const ws = t.workspace;
    if (!ws.secretId)
      throw new NexusError(
        'conflict',
        `Workspace ${ws.name} has no vault secret to push with; create the workspace with a provider token secret.`,
      );
    const secret = await this.deps.secrets.resolve(ws.secretId);
    checkSecretHost(secret.host, ws.repoUrl, ws.secretId);
    if (/[\r\n]/.test(secret.value))
      throw new NexusError('bad_request', `Secret "${ws.secretId}" holds a line break; a provider token is one line.`);
    this.deps.redactor.addSecret(secret.value);
    const payload = credentialPayload({
      host: credentialHost(ws.repoUrl),
      username: gitUsername(secret.kind),
      token: secret.value,
    });
    let partial = '';
    const r = await this.deps.exec.exec(ws, ['sh', '-c', SCRIPT, 'sh', this.deps.repoDir, t.worktree, t.branch], {
      stdin: payload,
      env: { GIT_TERMINAL_PROMPT: '0' },
      timeoutMs: this.deps.timeoutMs ?? 5 * 60_000,
      onStderr: (text) => {
        const lines = (partial + text).split(/[\r\n]/);
        partial = lines.pop() ?? '';
        for (const l of lines) {
          const p = progressOf(l);
          if (p) progress(p);
        }
      },
    });
    const stderr = this.deps.redactor.text(r.stderr);
    if (r.exitCode === 3) throw new NexusError('not_found', stderr.trim());
    const [, head = '', base = ''] = /^nexus-push (\S+) ?(\S*)$/m.exec(r.stdout) ?? [];
    const ref = porcelainRef(r.stdout, t.branch);
    if (r.exitCode !== 0 || !ref || ref.flag === '!') throw this.refusal(t, ref, stderr);
    progress({ step: 'Pushed', fraction: 1 });
    return {
      pushed: true,
      sessionId: t.sessionId,
      branch: t.branch,
      head,
      created: ref.flag === '*',
      link: base ? compareLink(ws.repoUrl, base, t.branch) : null,
    };
  }

  private refusal(t: PushTarget, ref: { flag: string; summary: string } | null, stderr: string): NexusError {
    const where = `the remote of workspace ${t.workspace.name}`;
    const tail = stderr
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !progressOf(l))
      .slice(-3)
      .join(' ')
      .slice(0, 300);
    if (ref?.flag === '!') {
      if (/non-fast-forward|fetch first|stale info/.test(ref.summary))
        return new NexusError(
          'conflict',
          `Push of ${t.branch} was rejected as non-fast-forward: ${where} has commits on that branch this one lacks. ` +
            'Pull them into the session or push under another name.',
        );
      return new NexusError('conflict', `Push of ${t.branch} was rejected by ${where}: ${ref.summary} ${tail}`.trim());
    }
    if (
      /Authentication failed|could not read (Username|Password)|\b40[13]\b|Invalid username or password|denied/i.test(
        stderr,
      )
    )
      return new NexusError(
        'forbidden',
        `The remote of workspace ${t.workspace.name} refused the workspace's credential (secret "${t.workspace.secretId}"); ` +
          'check the token and its scopes (it must be allowed to push).',
      );
    if (
      /Could not resolve host|Failed to connect|Connection refused|timed out|Connection reset|unable to access|Couldn't connect/i.test(
        stderr,
      )
    )
      return new NexusError('unavailable', `The remote of workspace ${t.workspace.name} is unreachable: ${tail}`);
    return new NexusError('unavailable', `Push of ${t.branch} failed: ${tail}`);
  }
}
