import type Docker from 'dockerode';
import type { Logger } from '../log';
import { leafNodeConfig, type LeafNodeInput, type NatsTrust } from '../platform';
import { dockerUnavailable, packTar } from '../docker';

const RELOAD_MS = 20_000;

/**
 * Revocations reaching remote engines' leaf nodes. A leaf loads core's account JWT from its config
 * (`resolver: MEMORY`), so a run ended on core (its user revoked there) would still be accepted at
 * the leaf until its JWT expires. Each time core's server has applied a revocation, every started
 * leaf gets its config again with the account JWT as of now and reloads it (SIGHUP), which drops
 * the revoked users' open connections and refuses new ones, as core's server does. Pushes to one
 * engine take turns (changes meanwhile share the next one); a failure is logged, and the next
 * revocation, or a new leaf, carries the whole list again.
 */
export class LeafTrust {
  /** Per started leaf: its container and what its config was rendered from. */
  private readonly leaves = new Map<string, { container: Docker.Container; input: LeafNodeInput }>();
  private readonly pushes = new Map<string, { again: boolean }>();

  constructor(
    private readonly deps: {
      /** core.platform.natsTrust: the account JWT as of now, revocations included (null: no NATS). */
      trust(): NatsTrust | null;
      log: Logger;
    },
  ) {}

  /** A leaf started with this config; a revocation made while it started (its trust read before) reaches it now. */
  started(engine: string, container: Docker.Container, input: LeafNodeInput): void {
    this.leaves.set(engine, { container, input });
    if (!sameRevocations(this.deps.trust(), input.trust)) this.push(engine);
  }

  /** The engine's leaf is gone or being replaced: nothing more is pushed to it. */
  forget(engine: string): void {
    this.leaves.delete(engine);
  }

  /** Core's account JWT changed: every started leaf loads it. */
  changed(): void {
    for (const engine of this.leaves.keys()) this.push(engine);
  }

  private push(engine: string): void {
    const current = this.pushes.get(engine);
    if (current) {
      current.again = true;
      return;
    }
    const entry = { again: true };
    this.pushes.set(engine, entry);
    void (async () => {
      while (entry.again) {
        entry.again = false;
        await this.reload(engine).catch((e: unknown) =>
          this.deps.log.warn('the leaf node did not take the new revocations', { engine, error: e }),
        );
      }
      this.pushes.delete(engine);
    })();
  }

  /** Writes the leaf's config with the account JWT as of now and has it reload; resolves once it has. */
  private async reload(engine: string): Promise<void> {
    const leaf = this.leaves.get(engine);
    const trust = this.deps.trust();
    if (!leaf || !trust || sameRevocations(trust, leaf.input.trust)) return;
    const input = { ...leaf.input, trust };
    const reloads = async (): Promise<number> => {
      const buf = (await leaf.container.logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
      return (buf.toString('utf8').match(/Reloaded server configuration/g) ?? []).length;
    };
    const before = await reloads();
    await leaf.container.putArchive(
      packTar([{ path: 'nexus-leaf/leaf.json', data: Buffer.from(leafNodeConfig(input)), mode: 0o444 }]),
      { path: '/tmp' },
    );
    // Not `docker kill -s HUP`: Docker counts any kill as a manual stop, and an `unless-stopped`
    // container is then not started again when its daemon restarts. The signal from inside instead
    // (the leaf's own user, to the server as PID 1).
    const hup = await leaf.container.exec({
      Cmd: ['sh', '-c', 'kill -HUP 1'],
      AttachStdout: false,
      AttachStderr: false,
    });
    await hup.start({ Detach: true });
    const until = Date.now() + RELOAD_MS;
    while ((await reloads()) <= before) {
      if (Date.now() > until) throw dockerUnavailable(`the leaf node on engine ${engine} did not reload its config`);
      await new Promise((r) => setTimeout(r, 100));
    }
    if (this.leaves.get(engine) === leaf) this.leaves.set(engine, { ...leaf, input });
  }
}

/** Whether two account JWTs revoke the same users (each JWT is signed anew, with its own `iat`). */
function sameRevocations(a: NatsTrust | null, b: NatsTrust): boolean {
  return !a || revocationsOf(a.accountJwt) === revocationsOf(b.accountJwt);
}

function revocationsOf(jwt: string): string {
  const body = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
    nats?: { revocations?: Record<string, number> };
  };
  return JSON.stringify(Object.entries(body.nats?.revocations ?? {}).sort(([x], [y]) => x.localeCompare(y)));
}
