import { describe, expect, it } from 'vitest';
import { parseEngineUrl } from './engine-url';

describe('engine addresses', () => {
  it('reads ssh://user@host[:port] as the engine socket forwarded over SSH, port 22 by default', () => {
    expect(parseEngineUrl('ssh://nexus@build.example.com')).toEqual({
      kind: 'ssh',
      host: 'build.example.com',
      port: 22,
      username: 'nexus',
      endpoint: { kind: 'socket', path: '/var/run/docker.sock' },
    });
    expect(parseEngineUrl('ssh://me@10.0.0.5:2222?socket=/run/user/1000/docker.sock')).toMatchObject({
      port: 2222,
      endpoint: { kind: 'socket', path: '/run/user/1000/docker.sock' },
    });
    expect(
      parseEngineUrl('ssh://me@h?dial=stdio').kind === 'ssh' && parseEngineUrl('ssh://me@h?dial=stdio'),
    ).toMatchObject({
      endpoint: { kind: 'dial-stdio' },
    });
  });

  it('reads tcp://host as TLS on 2376 by default', () => {
    expect(parseEngineUrl('tcp://docker.lan')).toEqual({ kind: 'tls', host: 'docker.lan', port: 2376 });
    expect(parseEngineUrl('tcp://docker.lan:12376')).toEqual({ kind: 'tls', host: 'docker.lan', port: 12376 });
  });

  it('refuses what would be unsafe or cannot work, saying why', () => {
    expect(() => parseEngineUrl('ssh://host')).toThrow(/needs a user/);
    expect(() => parseEngineUrl('ssh://me:pw@host')).toThrow(/No password/);
    expect(() => parseEngineUrl('http://host:2375')).toThrow(/ssh:\/\/ or by tcp:\/\/ with TLS/);
    expect(() => parseEngineUrl('unix:///var/run/docker.sock')).toThrow(/not supported/);
    expect(() => parseEngineUrl('ssh://me@h?socket=relative')).toThrow(/absolute path/);
    expect(() => parseEngineUrl('not a url')).toThrow(/not an engine address/);
  });
});
