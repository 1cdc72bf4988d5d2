import { describe, expect, it } from 'vitest';
import { NexusError, RemoteError } from './errors';

describe('RemoteError, the one client-side error class', () => {
  it('keeps the code of a wire-shaped error whatever carried it', () => {
    const err = RemoteError.from({ code: 'vault_locked', message: 'Unlock the vault first.' });
    expect(err).toBeInstanceOf(RemoteError);
    expect(err).toMatchObject({ code: 'vault_locked', message: 'Unlock the vault first.' });
    expect(RemoteError.from(new NexusError('not_found', 'No such session.')).code).toBe('not_found');
  });

  it('reports anything else as internal, with its message', () => {
    expect(RemoteError.from(new Error('socket hang up'))).toMatchObject({
      code: 'internal',
      message: 'socket hang up',
    });
    expect(RemoteError.from({ code: 'made_up', message: 'x' }).code).toBe('internal');
  });
});
