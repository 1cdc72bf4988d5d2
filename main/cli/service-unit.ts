/**
 * The service definition `nexus service install` writes: a systemd user unit on Linux, a launchd
 * agent plist on macOS. Pure text builders; every path is absolute and every value is quoted for
 * the format, so a data dir with spaces or `%` stays one argument.
 */

/** The systemd credential name the vault reads from `$CREDENTIALS_DIRECTORY` (docs/vault.md). */
export const VAULT_KEY_CREDENTIAL = 'nexus-vault-key';
export const SERVICE_NAME = 'nexus';

export interface ServiceSpec {
  /** The Node binary, absolute (the one running `nexus service install`). */
  node: string;
  /** dist/cli.js, absolute. */
  cli: string;
  /** The app's root: the working directory of the service. */
  appRoot: string;
  dataDir: string;
  port: number;
  /** Variables the service gets (NEXUS_* settings, PATH), in this order. */
  environment: [string, string][];
  /** A key file for the vault, absolute; systemd hands it over as the `nexus-vault-key` credential. */
  vaultKeyFile?: string | undefined;
}

const noNewline = (value: string): string => {
  if (/[\n\r\0]/.test(value)) throw new Error(`A service value cannot hold a line break: ${JSON.stringify(value)}`);
  return value;
};

/** One systemd word in double quotes: `\` and `"` escaped, `%` (specifiers) doubled; `$` doubled on command lines. */
const systemdWord = (value: string, commandLine: boolean): string => {
  let v = noNewline(value).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%');
  if (commandLine) v = v.replace(/\$/g, '$$$$');
  return `"${v}"`;
};

/** The systemd user unit (~/.config/systemd/user/nexus.service). */
export function systemdUnit(spec: ServiceSpec): string {
  const exec = [spec.node, spec.cli, 'serve', '--port', String(spec.port), '--data-dir', spec.dataDir]
    .map((w) => systemdWord(w, true))
    .join(' ');
  const lines = [
    '# Written by `nexus service install`; `nexus service uninstall` removes it.',
    '[Unit]',
    'Description=Nexus control plane (nexus serve)',
    '',
    '[Service]',
    'Type=simple',
    // A path setting takes the rest of the line as is (no quotes); only specifiers need escaping.
    `WorkingDirectory=${noNewline(spec.appRoot).replace(/%/g, '%%')}`,
    `ExecStart=${exec}`,
    ...spec.environment.map(([k, v]) => `Environment=${systemdWord(`${k}=${v}`, false)}`),
  ];
  // systemd copies the file into $CREDENTIALS_DIRECTORY (readable by the service only) at each start.
  if (spec.vaultKeyFile)
    lines.push(`LoadCredential=${VAULT_KEY_CREDENTIAL}:${noNewline(spec.vaultKeyFile).replace(/%/g, '%%')}`);
  lines.push(
    // Nexus stops its workers' connections and nats-server itself on SIGTERM; the rest is killed after the timeout.
    'KillMode=mixed',
    'TimeoutStopSec=30',
    'Restart=on-failure',
    'RestartSec=5',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  );
  return lines.join('\n');
}

const xml = (value: string): string =>
  noNewline(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export const LAUNCHD_LABEL = 'dev.nexus.serve';

/** The launchd agent (~/Library/LaunchAgents/dev.nexus.serve.plist); a key file goes in as NEXUS_VAULT_KEY_FILE. */
export function launchdPlist(spec: ServiceSpec): string {
  const args = [spec.node, spec.cli, 'serve', '--port', String(spec.port), '--data-dir', spec.dataDir];
  const env = [...spec.environment, ...(spec.vaultKeyFile ? [['NEXUS_VAULT_KEY_FILE', spec.vaultKeyFile]] : [])];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    '<dict>',
    `  <key>Label</key><string>${LAUNCHD_LABEL}</string>`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...args.map((a) => `    <string>${xml(a)}</string>`),
    '  </array>',
    `  <key>WorkingDirectory</key><string>${xml(spec.appRoot)}</string>`,
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    ...env.map(([k, v]) => `    <key>${xml(k ?? '')}</key><string>${xml(v ?? '')}</string>`),
    '  </dict>',
    '  <key>RunAtLoad</key><true/>',
    // Restarted when it exits with an error, like systemd's Restart=on-failure.
    '  <key>KeepAlive</key><dict><key>SuccessfulExit</key><false/></dict>',
    `  <key>StandardOutPath</key><string>${xml(`${spec.dataDir}/service.log`)}</string>`,
    `  <key>StandardErrorPath</key><string>${xml(`${spec.dataDir}/service.log`)}</string>`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}
