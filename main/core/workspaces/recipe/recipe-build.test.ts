import { describe, expect, it } from 'vitest';
import { buildRefusal } from './recipe-build';

// The engine's words for a failed build (Docker 20.10's legacy builder, as seen on this machine), mapped to the reason
// the operator reads. The step line echoes the checks' own words, so only exit codes and printed lines count.
const step =
  'Step 3/3 : RUN if [ ! -e /lib64/ld-linux-x86-64.so.2 ]; then echo "nexus-layer: the image has no glibc" >&2; exit 97; fi';

describe('a failed recipe build, in the operator’s words', () => {
  it('tells no glibc, missing tools, no shell and a plain failure apart', () => {
    const glibc = buildRefusal(
      "The command '/bin/sh -c if [ ! -e …' returned a non-zero code: 97",
      [step, ' ---> Running in 1', 'nexus-layer: the image has no glibc (musl or none)'],
      'layer',
    );
    expect([glibc.refusal, glibc.code]).toEqual(['no_glibc', 'bad_request']);
    expect(glibc.message).toMatch(/no glibc \(musl-based, e\.g\. alpine\).*Debian or Ubuntu/);
    const tools = buildRefusal(
      "The command '/bin/sh -c …' returned a non-zero code: 98",
      [step, 'nexus-layer: the image lacks tmux git and has no apt-get to install them'],
      'layer',
    );
    expect(tools.message).toBe(
      'Nexus cannot layer on this image: the image lacks tmux git and has no apt-get to install them',
    );
    const noShell = buildRefusal(
      'failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/bin/sh": stat /bin/sh: no such file or directory: unknown',
      [step],
      'layer',
    );
    expect([noShell.refusal, noShell.message]).toEqual([
      'no_shell',
      'Nexus cannot layer on this image: it has no /bin/sh.',
    ]);
    // A step echoing the checks' words is not a refusal of its own: the repository's build failed.
    const repo = buildRefusal(
      "The command '/bin/sh -c apt-get install -y nope' returned a non-zero code: 100",
      [step, 'E: Unable to locate package nope'],
      'repo',
    );
    expect([repo.refusal, repo.code]).toEqual(['build_failed', 'unavailable']);
    expect(repo.message).toBe(
      "The repository's image could not be built: The command '/bin/sh -c apt-get install -y nope' returned a non-zero code: 100\nE: Unable to locate package nope",
    );
  });
});
