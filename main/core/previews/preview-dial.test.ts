import { describe, expect, it } from 'vitest';
import { viaOf } from './preview-dial';

describe('the path to a preview', () => {
  it('goes to the address on the local bridge or through a remote SSH tunnel, else by docker exec', () => {
    const tunnel = () => Promise.reject(new Error('unused'));
    const at = { loopbackOnly: false, ipv6Only: false };
    expect(viaOf({ ...at, local: true })).toBe('bridge');
    expect(viaOf({ ...at, local: false, tunnel })).toBe('tunnel');
    expect(viaOf({ ...at, local: false })).toBe('exec');
    expect(viaOf({ ...at, local: false, loopbackOnly: true, tunnel })).toBe('exec');
    expect(viaOf({ ...at, local: false, ipv6Only: true, tunnel })).toBe('exec');
    expect(viaOf({ ...at, local: true, loopbackOnly: true })).toBe('exec');
  });
});
