import type { RuleAction, RuleTool } from '../../../../shared/contract/rules';
import { AGENT_CLI_CREDENTIAL_FILES } from '../../agents';
import { DEFAULT_FETCH_HOSTS, EDITS, GIT_LOCAL, READ_ONLY, TEST_AND_LINT } from './default-commands';
import type { RuleLike } from './evaluate';

/**
 * The shipped default set (docs/permissions.md, "The default set"). It allows reading and editing inside the
 * worktree, the usual read-only and git-local commands, and the common test, lint, type-check and build commands;
 * it always asks for git push and history rewrites, deletes outside the worktree, reads of credential files,
 * package publishing and installs, fetches to hosts off the allow-list (no rule allows them), and the seed's
 * hardline and suspicious command lists. Ask beats allow, so no rule the operator adds can auto-allow these.
 */
export interface DefaultRule extends RuleLike {
  note: string;
}

/** Credential files: SSH and cloud keys, package-registry and git tokens, Nexus's own secrets, .env files. */
const CREDENTIALS =
  String.raw`(^|[\s/'"=~])(\.ssh/|\.aws/(credentials|config)|\.netrc|\.npmrc|\.pypirc|\.git-credentials|` +
  String.raw`\.docker/config\.json|\.kube/config|\.gnupg/|\.config/gh/hosts\.yml|` +
  // Each agent kind's own sign-in files (its driver names them).
  AGENT_CLI_CREDENTIAL_FILES.map((f) => `${f}|`).join('') +
  String.raw`\.env(\.[\w.-]+)?(\s|$|['"])|id_(rsa|ed25519|ecdsa|dsa)\b|` +
  String.raw`/run/nexus/|/etc/shadow|auth\.json)`;

/**
 * The default set, its fetch allow-list `fetchHosts` (core config `rules.fetchHosts`; unset: documentation and
 * package registries). Ids are `default:<n>` in this order, the fetch hosts last, so a changed list moves no other id.
 */
export function defaultRules(fetchHosts: readonly string[] = DEFAULT_FETCH_HOSTS): DefaultRule[] {
  let n = 0;
  const rule = (action: RuleAction, tool: RuleTool, note: string, patterns: readonly string[]): DefaultRule[] =>
    patterns.map((pattern) => ({ id: `default:${++n}`, action, tool, pattern, note }));
  return [
    // Always ask: irreversible or off the machine.
    ...rule('ask', 'shell', 'git push and history rewrites', [
      'git push',
      'git reset --hard',
      'git rebase',
      'git commit --amend',
      'git filter-branch',
      'git filter-repo',
      'git reflog expire',
      'git update-ref',
      'git gc',
      'git clean',
      'git branch -D',
      'git branch -d',
      'git branch --delete',
      'git tag -d',
      'git stash drop',
      'git stash clear',
      'git checkout --',
      'git checkout .',
      'git restore',
      'git replace',
      're:\\bgit\\b.*\\s(--force|-f)\\b.*\\bpush\\b|\\bpush\\b.*\\s(--force|-f|\\+)',
    ]),
    ...rule('ask', 'shell', 'deletes outside the worktree', [
      'outside:rm',
      'outside:rmdir',
      'outside:shred',
      'outside:unlink',
      'outside:truncate',
      'outside:mv',
      'outside:find',
      'outside:rsync',
      're:(^|\\s)rm\\s.*(^|\\s|/)\\.git(\\s|/|$)',
    ]),
    ...rule('ask', 'edit', 'edits outside the worktree', ['outside']),
    ...rule('ask', 'read', 'reads of credential files', [`re:${CREDENTIALS}`]),
    ...rule('ask', 'edit', 'writes to credential files', [`re:${CREDENTIALS}`]),
    ...rule('ask', 'shell', 'reads of credential files', [`re:${CREDENTIALS}`, 'printenv', 'env', 'export -p']),
    ...rule('ask', 'shell', 'package publishing', [
      'npm publish',
      'pnpm publish',
      'yarn publish',
      'yarn npm publish',
      'cargo publish',
      'twine upload',
      'python -m twine upload',
      'python3 -m twine upload',
      'gem push',
      'poetry publish',
      'docker push',
      'gh release create',
      'npm unpublish',
      'npm deprecate',
      'npm dist-tag',
    ]),
    // Refused outright: Nexus's own run files (the session's credentials; the agent's CLI reads them at launch, never
    // a tool call), the host's cloud metadata service, and planting an SSH key.
    ...rule('deny', 'read', "Nexus's own run files", ['/run/nexus/**']),
    ...rule('deny', 'shell', "Nexus's own run files", ['re:(^|[\\s\'"=<>])/run/nexus(/|\\s|$)']),
    ...rule('deny', 'fetch', 'the cloud metadata service', ['169.254.*', 'metadata.google.internal', 'metadata']),
    ...rule('deny', 'edit', 'planting an SSH key', ['re:/\\.ssh/authorized_keys2?(\\s|$)']),
    // Refused outright: no task of an agent's needs them, and each destroys what no checkpoint brings back (the
    // operator runs them in a terminal if ever). A deny beats every rule, an allow-all included.
    ...rule('deny', 'shell', 'hardline: catastrophic commands', [
      're:\\brm\\s+(-[a-z]*\\s+)*(-[a-z]*[rf][a-z]*\\s+)+(--no-preserve-root\\s+)?(/|/\\*|~|~/|\\$HOME)(\\s|$)',
      're::\\(\\)\\s*\\{.*:\\s*\\|\\s*:.*&.*\\}',
      'mkfs*',
      're:\\bmkfs(\\.\\w+)?\\b',
      're:\\bdd\\b.*\\bof=/dev/',
      're:>\\s*/dev/(sd|nvme|hd|vd|xvd|mmcblk|disk)',
      'shutdown',
      'reboot',
      'halt',
      'poweroff',
      'init 0',
      'init 6',
      'systemctl poweroff',
      'systemctl reboot',
      'kill -9 -1',
      'kill -KILL -1',
    ]),
    ...rule('ask', 'shell', 'a script fetched and run', ['re:\\b(curl|wget)\\b[^|]*\\|\\s*(sudo\\s+)?(ba|z|da)?sh\\b']),
    ...rule('ask', 'shell', 'discards uncommitted work', [
      'git switch --discard-changes',
      'git switch -f',
      'git switch --force',
      'git checkout -f',
      'git checkout --force',
    ]),
    ...rule('ask', 'shell', 'suspicious: privilege, installs, host tooling, permissions, network', [
      'sudo',
      'su',
      'doas',
      'apt',
      'apt-get',
      'dpkg',
      'yum',
      'dnf',
      'apk',
      'brew',
      'snap',
      'npm install',
      'npm i',
      'npm ci',
      'npm add',
      'pnpm add',
      'pnpm install',
      'yarn add',
      'yarn install',
      'pip install',
      'pip3 install',
      'python -m pip',
      'python3 -m pip',
      'uv pip',
      'cargo install',
      'go install',
      'gem install',
      'kubectl',
      'docker',
      'podman',
      'systemctl',
      'service',
      'crontab',
      'mount',
      'umount',
      'iptables',
      'chown -R',
      'chmod -R',
      'chown',
      'chmod 777',
      'curl',
      'wget',
      'nc',
      'ncat',
      'netcat',
      'ssh',
      'scp',
      'sftp',
      'telnet',
      'ftp',
      'socat',
      'nmap',
      'git clone',
      'git remote add',
      'git remote set-url',
      'git submodule',
      'git config',
      'git credential',
      'gh',
      'aws',
      'gcloud',
      'az',
      'terraform',
      'pkill',
      'killall',
      'kill',
    ]),
    // Allowed: reading and editing inside the worktree, local git, the usual test and lint commands.
    ...rule('allow', 'read', 'reading inside the worktree', ['inside']),
    ...rule('allow', 'edit', 'editing inside the worktree', ['inside']),
    ...rule(
      'allow',
      'shell',
      'read-only commands inside the worktree',
      READ_ONLY.map((c) => `inside:${c}`),
    ),
    ...rule(
      'allow',
      'shell',
      'file edits inside the worktree',
      EDITS.map((c) => `inside:${c}`),
    ),
    ...rule(
      'allow',
      'shell',
      'local git inside the worktree',
      GIT_LOCAL.map((c) => `inside:${c}`),
    ),
    ...rule(
      'allow',
      'shell',
      "the repo's test, lint, type-check and build commands",
      TEST_AND_LINT.map((c) => `inside:${c}`),
    ),
    ...rule('allow', 'fetch', 'hosts on the fetch allow-list', fetchHosts),
  ];
}

export const DEFAULT_RULES: readonly DefaultRule[] = defaultRules();
