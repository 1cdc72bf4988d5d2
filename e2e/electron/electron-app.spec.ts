import { _electron as electron, expect, test } from '@playwright/test';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AppPage } from '../pages/app-page';

// The Electron binary is fetched on first launch and cannot be downloaded on machines without
// internet access; there these specs are skipped and the Chromium specs (same renderer, same page
// models, HTTP transport instead of IPC) cover the behaviour.
// Never `require('electron')` here: that starts the download.
function electronBinary(): string | null {
  try {
    const dir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
    const pathFile = join(dir, 'path.txt');
    if (!existsSync(pathFile)) return null;
    const binary = join(dir, 'dist', readFileSync(pathFile, 'utf8').trim());
    return existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}
const binary = electronBinary();

test.describe('Electron app', () => {
  test.skip(
    binary === null,
    'Electron binary not installed on this machine (no download possible); covered by the Chromium specs',
  );

  test('opens the secure window and shows the status bar over IPC', async () => {
    const userData = mkdtempSync(join(tmpdir(), 'nexus-electron-'));
    const app = await electron.launch({ executablePath: binary!, args: ['.', `--user-data-dir=${userData}`] });
    try {
      const page = await app.firstWindow();
      const shell = new AppPage(page);
      await expect(shell.statusBar).toBeVisible();
      expect(page.url()).toMatch(/^app:\/\/nexus\//);
      const nodeInRenderer = await page.evaluate(() => typeof (globalThis as { require?: unknown }).require);
      expect(nodeInRenderer).toBe('undefined');
      await shell.goTo('Settings');
    } finally {
      await app.close();
      rmSync(userData, { recursive: true, force: true });
    }
  });
});
