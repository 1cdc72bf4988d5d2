import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionsConfig } from '../sessions';
import { tempDir } from '../../../test/helpers/temp-dir';
import { StatusBoard } from '../app';
import { EventBus } from '../events';
import { createLogger } from '../log';
import { Redactor } from '../redact';
import { openStore, type Db } from '../store';
import { OsKeychain, VaultService } from '../vault';
import { acpDriver, type AcpKindDeclaration } from './acp';
import { AgentService } from './agent-service';
import { AGENT_CREDENTIALS, AgentDrivers, credentialKindsOf, type AgentRegistry } from './registry';

/**
 * The seam's promise for credentials (docs/agents.md, "Adding a kind"): a kind with a key type Nexus has never seen
 * declares it in its own folder, and the vault takes it, the secret form lists it with its label and Settings → Agent
 * chooses it, with no change to the contract or any other file. The kind here is a throwaway declaration that ships
 * nowhere; the vault, its store and the agent settings are the real ones.
 */
const throwaway: AcpKindDeclaration = {
  kind: 'mistral',
  label: 'Mistral Vibe',
  speaker: 'Vibe',
  cli: {
    spec: {
      kind: 'mistral',
      label: 'Mistral Vibe',
      package: 'mistral-vibe-test',
      version: '1.0.0',
      entryPackage: 'mistral-vibe-test',
      entry: 'bin/vibe',
      mount: 'prefix',
    },
    mountTarget: '/opt/nexus/mistral',
    argv: ['/opt/nexus/mistral/bin/vibe', '--acp'],
  },
  model: {
    wire: 'openai-chat',
    upstream: 'https://api.example.com',
    secretKinds: [{ kind: 'mistral_api_key', label: 'Mistral API key' }],
    describe: 'a Mistral API key',
    headers: (_k, v) => ({ authorization: `Bearer ${v}` }),
  },
  env: ({ gatewayUrl }) => ({ VIBE_BASE_URL: gatewayUrl }),
  keyVar: 'MISTRAL_API_KEY',
  askMode: null,
  mcpTransports: ['stdio'],
  sessionStore: '.vibe',
  credentialFiles: [],
};
const registry: AgentRegistry = { mistral: acpDriver(throwaway) };

describe('a kind with a new key type', () => {
  const dir = tempDir('nexus-credential-kinds-');
  const redactor = new Redactor();
  const events = new EventBus(redactor);
  let db: Db;
  let vault: VaultService;
  let agent: AgentService;
  beforeAll(async () => {
    db = openStore(join(dir.path, 'nexus.db'));
    const drivers = new AgentDrivers({
      dataDir: dir.path,
      launch: SessionsConfig.parse({}),
      kinds: {},
      registry,
    });
    vault = new VaultService({
      db,
      keychain: new OsKeychain(),
      redactor,
      log: createLogger({ redactor }),
      events,
      status: new StatusBoard(events),
      dataDir: dir.path,
      agentCredentialKinds: () => drivers.credentials.map((c) => c.kind),
    });
    await vault.init({});
    agent = new AgentService({ db, drivers, secrets: () => vault.secrets.list(), events });
  });
  afterAll(() => {
    vault.dispose();
    db.close();
    dir.remove();
  });

  it('is saved, listed with its label and the kind it signs in, and chosen as that kind default', () => {
    const key = vault.secrets.create({
      name: 'Mistral',
      kind: 'mistral_api_key',
      host: '',
      value: 'mistral-key-0000-1234',
    });
    expect(vault.secrets.list()).toEqual([expect.objectContaining({ id: key.id, kind: 'mistral_api_key' })]);
    expect(agent.get().credentials).toEqual([
      { kind: 'mistral_api_key', label: 'Mistral API key', agents: ['mistral'] },
    ]);
    expect(agent.get().kinds).toEqual([
      expect.objectContaining({ kind: 'mistral', credentialKinds: ['mistral_api_key'] }),
    ]);
    const settings = agent.setDefaultCredential('mistral', 'Mistral');
    expect(settings.kinds[0]?.defaultCredentialId).toBe(key.id);
    expect(agent.hasCredential(null, 'mistral')).toBe(true);
  });

  it('refuses a kind no driver declares, naming the ones there are, and changes nothing', () => {
    const before = vault.secrets.list();
    const refusal = {
      code: 'bad_request',
      message: expect.stringMatching(/No secret kind "anthropic_api_key".*github.*declare \(mistral_api_key\)/),
    };
    expect(() =>
      vault.secrets.create({ name: 'Other', kind: 'anthropic_api_key', host: '', value: 'sk-ant-0000-abcd' }),
    ).toThrow(expect.objectContaining(refusal));
    const [mistral] = before;
    expect(() => vault.secrets.update({ id: mistral?.id ?? '', kind: 'anthropic_api_key' })).toThrow(
      expect.objectContaining(refusal),
    );
    expect(vault.secrets.list()).toEqual(before);
    // The vault's own kinds need no driver.
    expect(vault.secrets.create({ name: 'gh', kind: 'github', host: 'github.com', value: 'ghp_0000abcd' }).kind).toBe(
      'github',
    );
  });

  it('is unknown to a vault that reads the shipped registry', () => {
    expect(AGENT_CREDENTIALS.map((c) => c.kind)).not.toContain('mistral_api_key');
    expect(AGENT_CREDENTIALS.length).toBeGreaterThan(0);
  });

  it('refuses a registry that labels one secret kind twice or claims a vault kind', () => {
    const twice = { ...throwaway, kind: 'mistral-2' };
    twice.model = { ...throwaway.model, secretKinds: [{ kind: 'mistral_api_key', label: 'Le Chat key' }] };
    expect(() => credentialKindsOf({ ...registry, 'mistral-2': acpDriver(twice) })).toThrow(/label secret kind/);
    const vaults = { ...throwaway, model: { ...throwaway.model, secretKinds: [{ kind: 'github', label: 'GitHub' }] } };
    expect(() => credentialKindsOf({ mistral: acpDriver(vaults) })).toThrow(/vault's own/);
  });
});
