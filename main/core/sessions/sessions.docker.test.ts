import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import type { Session } from '../../../shared/contract/sessions';
import { hostileCorpus } from '../../../test/helpers/hostile-corpus';
import { sessionRig, type SessionRig } from '../../../test/helpers/session-rig';
import type { WorkspaceInfo } from '../workspaces/runtime';
import { guardSubcommand } from '../agents/claude/launch';
import { AuditLog } from '../audit/audit-log';
import { Dispatcher } from '../dispatch';
import type { Handlers } from '../handlers';
import { createLogger } from '../log';
import { Redactor } from '../redact';
import { sessionHandlers } from './session-handlers';
import { waitFor } from '../../../test/helpers/wait';

let rig: SessionRig;
let ws: WorkspaceInfo;
let other: WorkspaceInfo;
const changes: (Session | null)[] = [];

const until = <T>(check: () => Promise<T> | T, ms = 15_000): Promise<NonNullable<T>> =>
  waitFor(check, 'the session to get there', ms);

const launches = async (containerId: string, id: string) =>
  (await rig.records(containerId, id)).filter((r) => r.kind === 'launch');
const container = (w: WorkspaceInfo): string => w.containerId as string;

beforeAll(async () => {
  rig = await sessionRig();
  host = rig.host;
  rig.events.subscribe((e) => {
    if (e.name === 'sessions.changed') changes.push((e.payload as { session: Session | null }).session);
  });
  ws = await rig.addWorkspace('demo');
  other = rig.addStoppedWorkspace('other');
}, 120_000);

let host: SessionRig['host'];

afterAll(async () => {
  await rig?.dispose();
});

/** Reads /api/events as an authenticated client until `match` sees an event, or times out. */
function nextEvent(
  match: (name: string, payload: unknown) => boolean,
  timeoutMs = 15_000,
): Promise<{ name: string; payload: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: host.host.port,
        path: '/api/events',
        headers: { host: `127.0.0.1:${host.host.port}`, authorization: `Bearer ${host.host.token}` },
      },
      (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          buf += d;
          let end: number;
          while ((end = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, end);
            buf = buf.slice(end + 2);
            const name = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (!name || !data) continue;
            const payload = JSON.parse(data) as unknown;
            if (match(name, payload)) {
              clearTimeout(timer);
              req.destroy();
              resolve({ name, payload });
            }
          }
        });
      },
    );
    const timer = setTimeout(() => (req.destroy(), reject(new Error('no matching event on /api/events'))), timeoutMs);
    req.on('error', () => undefined);
    req.end();
  });
}

describe('sessions in a real workspace container (docker, git, tmux, NATS; the fixture as the agent)', () => {
  let created: Session[] = [];

  it('creates 10 sessions at once: each returns creating at once, then all run in 10 distinct worktrees, no index.lock failure', async () => {
    const texts = hostileCorpus.slice(0, 10);
    created = await Promise.all(
      texts.map((t, i) => rig.service.create({ workspace: 'demo', name: `s${i}`, initialMessage: t })),
    );
    expect(created.every((s) => s.status === 'creating')).toBe(true);
    await rig.service.idle();
    const sessions = await rig.service.list('demo');
    expect(sessions.map((s) => [s.name, s.status, s.reason])).toEqual(texts.map((_, i) => [`s${i}`, 'running', null]));
    const worktrees = (await rig.sh(container(ws), 'git -C /workspace worktree list --porcelain'))
      .split('\n')
      .filter((l) => l.startsWith(`worktree ${rig.config.worktreesDir}/`));
    expect(new Set(worktrees).size).toBe(10);
    const branches = (await rig.sh(container(ws), 'git -C /workspace branch --format="%(refname:short)"'))
      .trim()
      .split('\n')
      .sort();
    expect(branches).toEqual(['main', ...texts.map((_, i) => `nexus/s${i}`)].sort());
    // The worktrees live on the workspace volume, inside the clone, and do not show in its status.
    expect(await rig.sh(container(ws), 'git -C /workspace status --porcelain')).toBe('');
  });

  it('hands every initial message to the agent byte-exact as its positional prompt, in its own worktree', async () => {
    for (const [i, s] of created.entries()) {
      const [launch] = await until(() => launches(container(ws), s.id).then((l) => (l.length ? l : null)));
      const text = hostileCorpus[i] as string;
      expect((launch as { parsed: { prompt: string; error: null } }).parsed).toMatchObject({
        prompt: guardSubcommand(text),
        error: null,
      });
      expect(launch).toMatchObject({
        cwd: `${rig.config.worktreesDir}/s${i}`,
        stdoutIsTTY: true,
        permissionMode: 'auto',
      });
    }
  });

  it(
    'launches the rest of the hostile corpus (subcommand names among them) as prompts, never as subcommands',
    { timeout: 90_000 },
    async () => {
      const rest = hostileCorpus.slice(10);
      const more = await Promise.all(
        rest.map((t, i) => rig.service.create({ workspace: 'demo', name: `t${i}`, initialMessage: t })),
      );
      await rig.service.idle();
      for (const [i, s] of more.entries()) {
        const [launch] = await until(() => launches(container(ws), s.id).then((l) => (l.length ? l : null)));
        expect((launch as { parsed: { prompt: string; subcommand: null } }).parsed).toMatchObject({
          prompt: guardSubcommand(rest[i] as string),
          subcommand: null,
        });
      }
      await Promise.all(more.map((s) => rig.service.delete(s.id)));
    },
  );

  it('launches a prompt near the command-line limit byte-exact (120 KB of UTF-8)', async () => {
    const text = `${'é'.repeat(60_000)} end`;
    const s = await rig.service.create({ workspace: 'demo', name: 'bigprompt', initialMessage: text });
    await rig.service.idle();
    expect((await rig.service.get(s.id)).status).toBe('running');
    const [launch] = await until(() => launches(container(ws), s.id).then((l) => (l.length ? l : null)));
    expect((launch as { parsed: { prompt: string } }).parsed.prompt).toBe(text);
    await rig.service.delete(s.id);
  });

  it('pins the argument order: the prompt follows --, after every flag, even with variadic flags configured', async () => {
    const s = created[0] as Session;
    const [launch] = await launches(container(ws), s.id);
    const argv = (launch as { argv: string[] }).argv;
    expect(argv.slice(-2)).toEqual(['--', guardSubcommand(hostileCorpus[0] as string)]);
    expect(argv).toContain('--permission-mode=auto');
  });

  it('delivers the hostile corpus byte-exact through the inbox socket, never through the terminal', async () => {
    const s = created[1] as Session;
    await until(async () =>
      (await rig.records(container(ws), s.id)).some((r) => r.kind === 'hook' && r.event === 'SessionStart'),
    );
    const inbox = async () => (await rig.records(container(ws), s.id)).filter((r) => r.kind === 'message');
    // Each send waits out the 2 s receipt window (the agent confirms no admitted message): the next one goes as soon
    // as the one before is in the inbox, so the order holds and the windows overlap instead of adding up to 40 s.
    const sends: Promise<{ report?: unknown; error?: unknown }>[] = [];
    for (const [i, text] of hostileCorpus.entries()) {
      sends.push(
        rig.service.sendMessage(s.id, text).then(
          (report) => ({ report }),
          (error: unknown) => ({ error }),
        ),
      );
      await until(async () => (await inbox()).length > i);
    }
    for (const sent of await Promise.all(sends))
      expect(sent).toEqual({ report: expect.objectContaining({ status: 'sent_unconfirmed', sessionId: s.id }) });
    const messages = await inbox();
    expect(messages.map((m) => m.content)).toEqual(hostileCorpus);
    expect(messages.every((m) => m.authOk === true && m.authFirst === true && m.status === 'delivered')).toBe(true);
  }, 120_000);

  it('changes agentState from a hook fired inside the container and pushes sessions.changed', async () => {
    const s = created[2] as Session;
    await until(async () => (await rig.service.get(s.id)).agentState !== 'starting');
    const before = changes.length;
    const reply = await rig.ctl(container(ws), s.id, {
      fire: 'Notification',
      fields: { notification_type: 'permission_prompt', message: 'Claude needs your permission to use Bash' },
    });
    expect(JSON.parse(reply)).toMatchObject({ ok: true });
    const got = await until(async () => {
      const x = await rig.service.get(s.id);
      return x.agentState === 'waiting_permission' ? x : null;
    });
    expect(got.agentMessage).toBe('Claude needs your permission to use Bash');
    await until(() => changes.slice(before).some((c) => c?.id === s.id && c.agentState === 'waiting_permission'));
    await rig.ctl(container(ws), s.id, { fire: 'Stop', fields: { stop_hook_active: false } });
    await until(async () => (await rig.service.get(s.id)).agentState === 'idle');
  });

  it('streams a hook event from inside the container to /api/events', async () => {
    const s = created[3] as Session;
    const seen = nextEvent(
      (name, p) =>
        name === 'sessions.changed' &&
        (p as { session?: Session }).session?.id === s.id &&
        (p as { session: Session }).session.agentState === 'waiting_input',
    );
    await new Promise((r) => setTimeout(r, 200));
    await rig.ctl(container(ws), s.id, {
      fire: 'Notification',
      fields: { notification_type: 'elicitation_dialog', message: 'Claude is waiting for your input' },
    });
    const event = await seen;
    expect((event.payload as { session: Session }).session.agentMessage).toBe('Claude is waiting for your input');
  });

  it('says on every running session that hook events may be missed when the hook relay died, until the next event', async () => {
    const s = created[4] as Session;
    await rig.exec(container(ws), ['sh', '-c', 'kill -9 "$(cat /tmp/nexus-tools/relay.pid)"']);
    const flagged = await until(async () => {
      const x = await rig.service.get(s.id);
      return x.agentMessage?.includes('may have been missed') ? x : null;
    });
    expect(flagged.status).toBe('running');
    await rig.ctl(container(ws), s.id, { fire: 'UserPromptSubmit', fields: { prompt: 'go on' } });
    await until(async () => {
      const x = await rig.service.get(s.id);
      return x.agentState === 'working' && x.agentMessage === null;
    });
  });

  it('ignores a hook event published for a session of another workspace', async () => {
    const s = created[3] as Session;
    const now = new Date(Date.now() + 60_000).toISOString();
    expect(
      rig.service.applyHook(other.id, {
        sessionId: s.id,
        workspaceId: other.id,
        at: now,
        event: { hook_event_name: 'SessionEnd', reason: 'spoof' },
      }),
    ).toBeNull();
    expect((await rig.service.get(s.id)).agentState).not.toBe('exited');
  });

  it('shows the pane read-only', async () => {
    const s = created[4] as Session;
    const pane = await until(async () => {
      const p = await rig.service.pane(s.id);
      return p.text.includes('ready') ? p : null;
    });
    expect(pane.sessionId).toBe(s.id);
  });

  it('deletes one session: its window and worktree go, its branch stays, the others stay intact and keep working', async () => {
    const victim = created[5] as Session;
    await rig.service.delete(victim.id);
    await expect(rig.service.get(victim.id)).rejects.toThrow(/No session/);
    expect(await rig.sh(container(ws), `test -e ${rig.config.worktreesDir}/s5 && echo yes || echo no`)).toBe('no\n');
    expect((await rig.sh(container(ws), 'git -C /workspace branch --list nexus/s5')).trim()).toBe('nexus/s5');
    const windows = await rig.sh(container(ws), 'tmux list-windows -t =nexus -F "#{window_name}"');
    expect(windows).not.toMatch(/^s5$/m);
    for (const i of [0, 1, 2, 3, 4, 6, 7, 8, 9]) {
      expect(windows).toMatch(new RegExp(`^s${i}$`, 'm'));
      expect(await rig.sh(container(ws), `test -f ${rig.config.worktreesDir}/s${i}/README.md && echo yes`)).toBe(
        'yes\n',
      );
    }
    await expect(rig.service.sendMessage((created[6] as Session).id, 'still here?')).resolves.toMatchObject({
      status: 'sent_unconfirmed',
    });
  });

  it('deletes a branch with unpushed commits only when forced, and a new session of the name picks a kept branch up', async () => {
    const s = await rig.service.create({ workspace: 'demo', name: 'kept' });
    await rig.service.idle();
    await rig.sh(
      container(ws),
      `cd ${rig.config.worktreesDir}/kept && echo w > work.txt && git add . && git commit -qm work`,
    );
    await rig.service.delete(s.id);
    const again = await rig.service.create({ workspace: 'demo', name: 'kept' });
    await rig.service.idle();
    expect(await rig.sh(container(ws), `cat ${rig.config.worktreesDir}/kept/work.txt`)).toBe('w\n');
    await expect(rig.service.delete(again.id, { deleteBranch: true })).rejects.toMatchObject({ code: 'conflict' });
    expect((await rig.service.get(again.id)).status).toBe('running');
    await expect(rig.service.delete(again.id, { deleteBranch: true, force: true })).resolves.toMatchObject({
      branchDeleted: true,
    });
    expect(await rig.sh(container(ws), 'git -C /workspace branch --list nexus/kept')).toBe('');
  });

  it('retries a failed worktree add once, cleaning only its own partial checkout', async () => {
    await rig.sh(
      container(ws),
      `mkdir -p ${rig.config.worktreesDir}/retry && echo junk > ${rig.config.worktreesDir}/retry/leftover`,
    );
    const s = await rig.service.create({ workspace: 'demo', name: 'retry', initialMessage: 'after a retry' });
    await rig.service.idle();
    expect((await rig.service.get(s.id)).status).toBe('running');
    expect(
      await rig.sh(container(ws), `test -e ${rig.config.worktreesDir}/retry/leftover && echo yes || echo no`),
    ).toBe('no\n');
    expect(await rig.sh(container(ws), `test -f ${rig.config.worktreesDir}/s0/README.md && echo yes`)).toBe('yes\n');
    await rig.service.delete(s.id);
  });

  it('opens alone each window the one tmux command of its batch did not open, and says why one cannot open', async () => {
    // A real tmux failure for the window named w-fails: its target is index 0 (home), which is in use.
    const wrapper = `#!/bin/bash
a=("$@"); s=0
for ((i = 0; i <= \${#a[@]}; i++)); do
  if ((i == \${#a[@]})) || [[ \${a[i]} == ';' ]]; then
    for ((j = s; j < i; j++)); do
      [[ \${a[j]} == -n && \${a[j+1]} == w-fails ]] || continue
      for ((k = s; k < i; k++)); do [[ \${a[k]} == -t ]] && a[k+1]="\${a[k+1]}0"; done
    done
    s=$((i + 1))
  fi
done
exec /usr/bin/tmux "\${a[@]}"
`;
    await rig.sh(container(ws), 'cat > /usr/local/bin/tmux && chmod 755 /usr/local/bin/tmux', wrapper);
    try {
      const made = await Promise.all(
        ['w-a', 'w-fails', 'w-c'].map((name) => rig.service.create({ workspace: 'demo', name })),
      );
      await rig.service.idle();
      const [a, fails, c] = await Promise.all(made.map((s) => rig.service.get(s.id)));
      expect(fails).toMatchObject({ status: 'error' });
      expect(fails?.reason).toContain('tmux new-window: create window failed: index 0 in use');
      const windows = await rig.sh(
        container(ws),
        `/usr/bin/tmux list-windows -t '=${rig.config.tmuxSession}' -F '#{window_name}'`,
      );
      expect(windows.split('\n')).toEqual(expect.arrayContaining(['w-a', 'w-c']));
      expect(windows.split('\n')).not.toContain('w-fails');
      for (const s of [a, c]) expect(s).toMatchObject({ status: 'running', reason: null });
      for (const s of made) await rig.service.delete(s.id, { deleteBranch: true, force: true });
    } finally {
      await rig.sh(container(ws), 'rm -f /usr/local/bin/tmux');
    }
  });

  it('says the agent exited, typed, when a message comes after it has gone', async () => {
    const s = created[7] as Session;
    await until(async () =>
      (await rig.records(container(ws), s.id)).some((r) => r.kind === 'hook' && r.event === 'SessionStart'),
    );
    await rig.ctl(container(ws), s.id, { exit: 0 });
    await until(async () => (await rig.service.get(s.id)).agentState === 'exited');
    await expect(rig.service.sendMessage(s.id, 'hello?')).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/agent of session s7 has exited \(.+\): restart its workspace/),
    });
  });

  it('refuses a duplicate name and a session in a stopped workspace', async () => {
    await expect(rig.service.create({ workspace: 'demo', name: 's0' })).rejects.toMatchObject({ code: 'conflict' });
    await expect(rig.service.create({ workspace: 'other', name: 'x' })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/not running/),
    });
  });

  it('serves the contract through the dispatcher: class checked, names validated, errors typed', async () => {
    const dispatcher = new Dispatcher({ ...sessionHandlers(rig.service) } as unknown as Handlers, {
      redactor: new Redactor(),
      log: createLogger({ redactor: new Redactor() }),
      audit: new AuditLog(rig.db),
    });
    const token = (access: 'read' | 'write') => ({
      transport: 'mcp' as const,
      caller: { kind: 'token' as const, tokenId: 't', name: 't', access },
    });
    await expect(
      dispatcher.call('sessions.create', { workspace: 'demo', name: 'viamcp' }, token('read')),
    ).rejects.toMatchObject({ code: 'forbidden' });
    for (const name of ['../x', 'a b', 'nexus/x', 'UPPER', '-lead', 'x.lock', '']) {
      await expect(
        dispatcher.call('sessions.create', { workspace: 'demo', name }, token('write')),
      ).rejects.toMatchObject({ code: 'bad_request' });
    }
    const s = await dispatcher.call(
      'sessions.create',
      { workspace: 'demo', name: 'viamcp', initialMessage: 'from a tool' },
      token('write'),
    );
    expect(s.status).toBe('creating');
    await rig.service.idle();
    const listed = await dispatcher.call('sessions.list', { workspace: 'demo' }, token('read'));
    expect(listed.sessions.find((x) => x.id === s.id)?.status).toBe('running');
    await until(async () =>
      (await rig.records(container(ws), s.id)).some((r) => r.kind === 'hook' && r.event === 'SessionStart'),
    );
    await expect(
      dispatcher.call('sessions.sendMessage', { session: 'demo/viamcp', text: 'hi' }, token('write')),
    ).resolves.toMatchObject({ status: 'sent_unconfirmed', sessionId: s.id });
    await expect(dispatcher.call('sessions.get', { session: 'demo/nope' }, token('read'))).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(dispatcher.call('sessions.delete', { session: s.id }, token('write'))).resolves.toEqual({
      deleted: true,
      id: s.id,
    });
  });
});
