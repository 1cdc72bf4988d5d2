import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CliError } from './running-app';
import {
  LAUNCHD_LABEL,
  SERVICE_NAME,
  VAULT_KEY_CREDENTIAL,
  launchdPlist,
  systemdUnit,
  type ServiceSpec,
} from './service-unit';

export const SERVICE_USAGE = `  nexus service install [--port N] [--data-dir DIR] [--vault-key-file FILE] [--print]
                                            run nexus serve as a systemd user service (Linux; macOS: prints
                                            a launchd agent); FILE unseals the vault at every start
  nexus service uninstall                   stop the service and remove its unit`;

/** The oldest Node line the service may run on (package.json engines). */
const MIN_NODE_MAJOR = 24;
/** Settings the unit carries from the installing shell; values that may be secrets never go into a unit file. */
const CARRIED = /^NEXUS_/;
const NOT_CARRIED = new Set(['NEXUS_DATA_DIR', 'NEXUS_PORT', 'NEXUS_VAULT_KEY_FILE']);
const SECRET_NAME = /TOKEN|SECRET|PASSPHRASE|PASSWORD|_KEY$/;

export interface ServiceDeps {
  appRoot: string;
  defaultDataDir: string;
  defaultPort: number;
  home: string;
  platform: NodeJS.Platform;
  /** The Node running this command (process.execPath) and its version. */
  node: string;
  nodeVersion: string;
  env: NodeJS.ProcessEnv;
  uid: number;
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
  /** `systemctl --user …`; resolves with an error text when the user manager cannot be reached. */
  systemctl?: (args: string[]) => Promise<string | null>;
}

export const unitPath = (deps: Pick<ServiceDeps, 'home' | 'env'>): string =>
  join(deps.env.XDG_CONFIG_HOME ?? join(deps.home, '.config'), 'systemd', 'user', `${SERVICE_NAME}.service`);

const realSystemctl = (args: string[]): Promise<string | null> =>
  new Promise((done) =>
    execFile('systemctl', ['--user', ...args], { timeout: 30_000 }, (e, _stdout, stderr) =>
      done(e ? (stderr.trim() || e.message).split('\n')[0]! : null),
    ),
  );

/** A key file the vault will accept: a regular file of this user's, readable by nobody else. */
function checkKeyFile(file: string, uid: number): void {
  let st;
  try {
    st = statSync(file);
  } catch {
    throw new CliError(`The vault key file ${file} does not exist.`);
  }
  if (!st.isFile()) throw new CliError(`The vault key file ${file} is not a regular file.`);
  if (st.uid !== uid) throw new CliError(`The vault key file ${file} is not owned by you (uid ${uid}).`);
  if ((st.mode & 0o077) !== 0)
    throw new CliError(
      `The vault key file ${file} has mode ${(st.mode & 0o777).toString(8)}: others can read it. Run: chmod 600 ${file}`,
    );
}

function serviceSpec(values: { port?: string; 'data-dir'?: string; 'vault-key-file'?: string }, deps: ServiceDeps) {
  const port = Number(values.port ?? deps.env.NEXUS_PORT ?? deps.defaultPort);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new CliError(`--port must be 1..65535, got ${port}`);
  const cli = resolve(deps.appRoot, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new CliError(`${cli} is missing: run npm run build first.`);
  const major = Number(deps.nodeVersion.replace(/^v/, '').split('.')[0]);
  if (!(major >= MIN_NODE_MAJOR))
    throw new CliError(
      `This is Node ${deps.nodeVersion}; the service needs ${MIN_NODE_MAJOR} or newer. Run . scripts/node-env.sh first.`,
    );
  const keyFile = values['vault-key-file'] ? resolve(values['vault-key-file']) : undefined;
  if (keyFile) checkKeyFile(keyFile, deps.uid);
  const skipped: string[] = [];
  const environment: [string, string][] = [];
  // The service's PATH starts with this Node's directory: npm and `#!/usr/bin/env node` then find it too.
  const path = [dirname(deps.node), ...(deps.env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(delimiter)];
  environment.push(['PATH', [...new Set(path.filter(Boolean))].join(delimiter)]);
  for (const [k, v] of Object.entries(deps.env).sort(([a], [b]) => a.localeCompare(b))) {
    if (!CARRIED.test(k) || NOT_CARRIED.has(k) || v === undefined) continue;
    if (SECRET_NAME.test(k)) skipped.push(k);
    else environment.push([k, v]);
  }
  const spec: ServiceSpec = {
    node: deps.node,
    cli,
    appRoot: resolve(deps.appRoot),
    dataDir: values['data-dir'] ? resolve(values['data-dir']) : deps.defaultDataDir,
    port,
    environment,
    vaultKeyFile: keyFile,
  };
  return { spec, skipped };
}

const OPTIONS = {
  port: { type: 'string' },
  'data-dir': { type: 'string' },
  'vault-key-file': { type: 'string' },
  print: { type: 'boolean' },
} as const;

export async function serviceCommand(args: string[], deps: ServiceDeps): Promise<number> {
  const [sub, ...rest] = args;
  const say = (text: string): void => void deps.out.write(`${text}\n`);
  if (deps.platform !== 'linux' && deps.platform !== 'darwin')
    throw new CliError(`nexus service supports Linux (systemd) and macOS (launchd) only, not ${deps.platform}.`);
  if (sub === 'install') {
    const { values } = parseArgs({ args: rest, options: OPTIONS, strict: true, allowPositionals: false });
    const { spec, skipped } = serviceSpec(values, deps);
    if (skipped.length) deps.err.write(`Not written into the service (they may hold secrets): ${skipped.join(', ')}\n`);
    if (deps.platform === 'darwin') {
      const plist = join(deps.home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
      deps.err.write(
        `launchd agent for Nexus (not written; save it as ${plist}, then: launchctl bootstrap gui/$(id -u) ${plist}):\n`,
      );
      deps.out.write(launchdPlist(spec));
      return 0;
    }
    const unit = systemdUnit(spec);
    if (values.print) {
      deps.out.write(unit);
      return 0;
    }
    const file = unitPath(deps);
    const existed = existsSync(file);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, unit, { mode: 0o600 });
    say(`${existed ? 'Replaced' : 'Wrote'} ${file}: nexus serve on 127.0.0.1:${spec.port}, data in ${spec.dataDir},`);
    say(`  Node ${deps.nodeVersion} (${spec.node}), restarted on failure.`);
    if (spec.vaultKeyFile)
      say(`  The vault unseals at each start from ${spec.vaultKeyFile} (credential ${VAULT_KEY_CREDENTIAL}).`);
    say('Start it now and at every login:');
    say(`  systemctl --user ${existed ? 'daemon-reload && systemctl --user restart' : 'enable --now'} ${SERVICE_NAME}`);
    say('Keep it running after you log out (and start it at boot):');
    say('  loginctl enable-linger $USER');
    say('Then `nexus status` prints its URL and what needs you.');
    return 0;
  }
  if (sub === 'uninstall') {
    parseArgs({ args: rest, options: {}, strict: true, allowPositionals: false });
    if (deps.platform === 'darwin') {
      say(`launchctl bootout gui/$(id -u)/${LAUNCHD_LABEL}; rm ~/Library/LaunchAgents/${LAUNCHD_LABEL}.plist`);
      return 0;
    }
    const file = unitPath(deps);
    if (!existsSync(file)) {
      say(`No Nexus service is installed (${file} does not exist).`);
      return 0;
    }
    const systemctl = deps.systemctl ?? realSystemctl;
    const stopped = await systemctl(['disable', '--now', SERVICE_NAME]);
    rmSync(file, { force: true });
    rmSync(join(dirname(file), 'default.target.wants', `${SERVICE_NAME}.service`), { force: true });
    await systemctl(['daemon-reload']);
    say(`Removed ${file}.`);
    if (stopped) say(`systemctl --user could not stop it (${stopped}); if it still runs: systemctl --user stop nexus`);
    else say('The service is stopped and disabled.');
    return 0;
  }
  throw new CliError(`Usage:\n${SERVICE_USAGE}`);
}
