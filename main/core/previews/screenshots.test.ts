import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/temp-dir';
import { createLogger } from '../log';
import { Redactor } from '../redact';
import { findChromium, Screenshotter } from './screenshots';

const dir = tempDir('nexus-shooter-');
afterAll(() => dir.remove());

describe('the screenshots browser', () => {
  it('finds the named Chromium, or none when the name is wrong (then no screenshot is taken)', () => {
    expect(findChromium({ NEXUS_CHROMIUM: '/nonexistent/chromium' })).toBeNull();
    expect(findChromium({ NEXUS_CHROMIUM: process.execPath })).toBe(process.execPath);
  });

  it('answers null when the browser does not start, and tries again at the next shot', async () => {
    const log = createLogger({ file: join(dir.path, 'log'), stderr: false, redactor: new Redactor() });
    const shooter = new Screenshotter('/nonexistent/chromium', log);
    expect(await shooter.shoot('http://127.0.0.1:9/')).toBeNull();
    expect(await shooter.shoot('http://127.0.0.1:9/')).toBeNull();
    await shooter.dispose();
  }, 60_000);
});
