import { describe, expect, it } from 'vitest';
import { matchesVerifier, secretVerifier } from './preregistered-clients';

describe('the verifier a pre-registered client secret is stored as', () => {
  const secret = 'k3Yx7Qm0_vN2pA9-wL5rT8sE1uZ4cB6dF0hJ2gK7mPq';

  it('holds no part of the secret and accepts only that secret', () => {
    const stored = secretVerifier(secret);
    expect(stored).toMatch(/^nexus-sha256:[A-Za-z0-9_-]{43}$/);
    expect(stored).not.toContain(secret.slice(0, 8));
    expect(matchesVerifier(stored, secret)).toBe(true);
    expect(matchesVerifier(stored, `${secret}x`)).toBe(false);
    expect(matchesVerifier(stored, stored)).toBe(false);
    expect(matchesVerifier(stored, '')).toBe(false);
  });

  it("leaves any other stored secret (a dynamically registered client's) to the library's comparison", () => {
    expect(matchesVerifier(secret, secret)).toBeNull();
    expect(matchesVerifier(undefined, secret)).toBeNull();
  });
});
