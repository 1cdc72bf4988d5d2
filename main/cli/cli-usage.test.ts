import { describe, expect, it } from 'vitest';
import { AGENT_KINDS } from '../core/agents';
import { version } from '../version';
import { runCli } from './cli-app';
import { testContext } from './cli-test-context';

const run = async (argv: string[], opts: { tty?: boolean; input?: string } = {}) => {
  const t = testContext({ tty: opts.tty });
  if (opts.input !== undefined) t.stdin.end(opts.input);
  const code = await runCli(argv, t.ctx);
  return { code, stdout: t.stdout(), stderr: t.stderr() };
};

const COMMANDS = [
  ['serve'],
  ['mcp-stdio'],
  ['ls'],
  ['new'],
  ['send'],
  ['attach'],
  ['rm'],
  ['allow'],
  ['deny'],
  ['status'],
  ['unlock'],
  ['token'],
  ['token', 'create'],
  ['token', 'list'],
  ['token', 'revoke'],
  ['rules'],
  ['rules', 'list'],
  ['rules', 'add'],
  ['rules', 'rm'],
  ['usage'],
  ['service'],
  ['service', 'install'],
  ['service', 'uninstall'],
];

describe('nexus on the command line', () => {
  it('answers --help on every command with that command’s usage and exit 0', async () => {
    for (const command of COMMANDS) {
      const r = await run([...command, '--help']);
      expect(r, command.join(' ')).toMatchObject({ code: 0, stderr: '' });
      expect(r.stdout, command.join(' ')).toMatch(new RegExp(`^nexus ${command.join(' ')}\\b`));
      expect(r.stdout, command.join(' ')).toContain('--data-dir');
    }
    expect((await run(['help', '--help'])).stdout).toMatch(/^nexus — control plane/);
    expect((await run(['help', 'attach'])).stdout).toMatch(/^nexus attach <session>[^]*Ctrl-b d detaches/);
  });

  it('prints the command list and the exit codes with no command, and the version with --version', async () => {
    const none = await run([]);
    expect(none.code).toBe(0);
    for (const c of ['serve', 'ls', 'new', 'send', 'attach', 'rm', 'allow', 'deny', 'status', 'unlock', 'token'])
      expect(none.stdout).toContain(`nexus ${c}`);
    expect(none.stdout).toMatch(/Exit codes: 0 done; 1 failed[^]*2\s+usage\s+error[^]*3\s+Nexus\s+is\s+not\s+running/);
    expect(await run(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
    expect((await run(['completion'])).stdout).toMatch(/^###-begin-nexus-completions-###/);
  });

  it('refuses a wrong command line with exit 2 and one line saying why', async () => {
    const cases: [string[], RegExp][] = [
      [['bogus'], /Unknown command "bogus"/],
      [['send'], /Not enough non-option arguments/],
      [['send', 'cli/one', 'two', 'texts'], /one text \(quote it\)/],
      [['new'], /Not enough non-option arguments/],
      [['new', 'cli'], /Name the session, or start it from an issue \(--issue\)/],
      [['new', 'cli', '--issue', 'abc'], /--issue takes an issue number \(42 or #42\), not "abc"/],
      [['new', 'cli', '--issue', '4', '-m', 'hi'], /Arguments issue and message are mutually exclusive/],
      [
        ['new', 'cli', 'one', '--agent', 'gpt'],
        new RegExp(
          `^nexus: Invalid values: Argument: agent, Given: "gpt", Choices: ${AGENT_KINDS.map((k) => `"${k}"`).join(', ')} \\(see: nexus new --help\\)$`,
          'm',
        ),
      ],
      [['new', 'cli', 'one', '-m'], /Not enough arguments following: m/],
      [['ls', '--all'], /Unknown argument: all/],
      [['usage', '--csv', '--json'], /Arguments csv and json are mutually exclusive/],
      [['allow', 'req', '--note', 'why'], /Unknown argument: note/],
      [['serve', '--port', '99999'], /--port must be 0\.\.65535/],
      [['token', 'create', '--class', 'operator', '--name', 'x'], /--class must be read, write or vault/],
      [['token'], /Name a token command/],
      [['rules'], /Name a rules command/],
      [['rules', 'add', 'maybe', 'shell', 'npm test'], /The action must be allow, ask or deny/],
      [['rules', 'add', 'allow', 'shell', 'x', '--workspace', 'a', '--session', 'b'], /not both/],
      [['help', 'nope'], /Unknown command "nope"/],
    ];
    for (const [argv, reason] of cases) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stdout, argv.join(' ')).toBe('');
      expect(r.stderr, argv.join(' ')).toMatch(/^nexus: [^\n]+\n$/);
      expect(r.stderr, argv.join(' ')).toMatch(reason);
    }
  });

  it('takes "-" as the message from stdin only when it is piped, and refuses an empty or non-UTF-8 one', async () => {
    expect((await run(['send', 'cli/one', '-'], { tty: true })).stderr).toMatch(/stdin is a terminal/);
    expect(await run(['send', 'cli/one', '-'], { input: '' })).toMatchObject({ code: 2 });
    const t = testContext();
    t.stdin.end(Buffer.from([0x66, 0xff, 0x6f]));
    expect(await runCli(['new', 'cli', 'one', '-m', '-'], t.ctx)).toBe(2);
    expect(t.stderr()).toMatch(/not UTF-8 text/);
  });

  it('exits 3 and says so when no Nexus runs on the data dir, for every command that needs one', async () => {
    const commands = [
      ['ls'],
      ['new', 'cli', 'one', '-m', 'hello'],
      ['new', 'cli', '--issue', '#4'],
      ['send', 'cli/one', 'hello'],
      ['rm', 'cli/one'],
      ['allow', 'req-1'],
      ['deny', 'req-1', '--note', 'no'],
      ['attach', 'cli/one'],
      ['unlock'],
      ['usage'],
      ['usage', '--csv'],
    ];
    for (const argv of commands) {
      const r = await run(argv, { tty: true });
      expect(r.code, argv.join(' ')).toBe(3);
      expect(r.stderr, argv.join(' ')).toBe(
        'nexus: Nexus is not running on /nonexistent/nexus-data: start it (nexus serve) first.\n',
      );
    }
    const status = await run(['status']);
    expect(status.code).toBe(3);
    expect(status.stdout).toContain('Nexus is not running on /nonexistent/nexus-data');
  });
});
