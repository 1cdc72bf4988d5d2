import { describe, expect, it } from 'vitest';
import { inSubnet } from './delegation-listener';

describe('the worker listener subnet check', () => {
  it('takes addresses inside the bridge subnet only, IPv4-mapped forms too', () => {
    expect(inSubnet('172.18.0.2', '172.18.0.0/16')).toBe(true);
    expect(inSubnet('::ffff:172.18.255.254', '172.18.0.0/16')).toBe(true);
    expect(inSubnet('172.19.0.2', '172.18.0.0/16')).toBe(false);
    expect(inSubnet('127.0.0.1', '172.18.0.0/16')).toBe(false);
    expect(inSubnet('10.1.2.3', '10.1.2.0/24')).toBe(true);
    expect(inSubnet('10.1.3.3', '10.1.2.0/24')).toBe(false);
    expect(inSubnet('::1', '172.18.0.0/16')).toBe(false);
    expect(inSubnet(undefined, '172.18.0.0/16')).toBe(false);
    expect(inSubnet('999.1.1.1', '0.0.0.0/0')).toBe(false);
    expect(inSubnet('172.18.0.2', 'junk')).toBe(false);
  });
});
