import type { ConnectInfo, OpOutput, TokenClass } from '../../../shared/contract';
import type { Handlers } from '../handlers';
import type { Logger } from '../log';
import type { HostAddress } from '../ports';
import type { TokenService } from '../tokens';
import type { CoreSecrets } from '../vault';
import {
  claudeDesktopConfigPath,
  readServerEntry,
  writeServerEntry,
  type StdioServerEntry,
} from './claude-desktop-config';
import { MCP_PATH } from './gate';
import { MCP_SERVER_NAME } from './server';
import { stdioSecret } from './stdio-credential';

/** How Claude Desktop starts the stdio bridge: an executable and the arguments before `mcp-stdio`. */
export interface StdioLauncher {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

export interface ConnectDeps {
  tokens: TokenService;
  /** Where the token is kept: the OS keychain, else a 0600 file in the data dir (stdio-credential.ts). */
  secrets: CoreSecrets;
  /** The loopback host: the MCP endpoint is `<host url>/api/mcp`. */
  host: HostAddress;
  log: Logger;
  dataDir: string;
  /** How Claude Desktop starts `nexus mcp-stdio`; default: this Node and this script. */
  launcher?: StdioLauncher | undefined;
  claudeDesktopConfig?: string | undefined;
}

const thisProcess = (): StdioLauncher => ({
  command: process.execPath,
  args: process.argv[1] ? [process.argv[1]] : [],
});

/** "Connect Claude Desktop" and the Claude Code line: the operator-facing side of the MCP server. */
export class ConnectService {
  constructor(private readonly deps: ConnectDeps) {}

  /** The MCP endpoint, once the host listens. */
  private get url(): string | null {
    const host = this.deps.host.url();
    return host ? `${host.replace(/\/$/, '')}${MCP_PATH}` : null;
  }

  get configPath(): string {
    return this.deps.claudeDesktopConfig ?? claudeDesktopConfigPath();
  }

  stdioEntry(): StdioServerEntry {
    const { command, args, env } = this.deps.launcher ?? thisProcess();
    return {
      command,
      args: [...args, 'mcp-stdio', '--data-dir', this.deps.dataDir],
      ...(env && Object.keys(env).length ? { env } : {}),
    };
  }

  info(): ConnectInfo {
    const entry = this.stdioEntry();
    const url = this.url;
    let connected = false;
    try {
      connected = readServerEntry(this.configPath, MCP_SERVER_NAME) !== null;
    } catch {
      connected = false;
    }
    return {
      mcpUrl: url,
      claudeCodeCommand: url
        ? `claude mcp add --transport http ${MCP_SERVER_NAME} ${url} --header "Authorization: Bearer <token>"`
        : null,
      claudeDesktop: { configPath: this.configPath, connected, serverName: MCP_SERVER_NAME },
      stdioCommand: { command: entry.command, args: entry.args },
    };
  }

  /**
   * Keeps one token for Claude Desktop in the OS keychain, or without one in a 0600 file beside
   * serve.json (reused while it is active and of the asked class, else a new one replaces it and the
   * old one is revoked) and writes the config entry, which holds no secret: the bridge reads the token.
   */
  async connectClaudeDesktop(cls: TokenClass, expiresInDays?: number): Promise<OpOutput<'connect.claudeDesktop'>> {
    const kept = stdioSecret(this.deps.dataDir, cls);
    const existing = await this.deps.secrets.get(kept);
    const verdict = existing ? this.deps.tokens.store.verify(existing) : null;
    let token = verdict?.ok && verdict.token.class === cls ? verdict.token : null;
    const newToken = token === null;
    if (!token) {
      // Where it would be filed (no keychain), a vault-class token is refused before it is minted.
      await this.deps.secrets.ready(kept);
      const created = await this.deps.tokens.create('Claude Desktop', cls, expiresInDays);
      try {
        await this.deps.secrets.set(kept, created.secret);
      } catch (e) {
        await this.deps.tokens.revoke(created.token.id);
        throw e;
      }
      if (verdict?.ok) await this.deps.tokens.revoke(verdict.token.id);
      token = created.token;
    }
    const { changed, backupPath } = writeServerEntry(this.configPath, MCP_SERVER_NAME, this.stdioEntry());
    this.deps.log.info('claude desktop connected', {
      configPath: this.configPath,
      changed,
      newToken,
      tokenId: token.id,
    });
    return { configPath: this.configPath, backupPath, changed, token, newToken };
  }
}

export function connectHandlers(connect: ConnectService): Pick<Handlers, 'connect.info' | 'connect.claudeDesktop'> {
  return {
    'connect.info': () => connect.info(),
    'connect.claudeDesktop': (input) => connect.connectClaudeDesktop(input.class, input.expiresInDays),
  };
}
