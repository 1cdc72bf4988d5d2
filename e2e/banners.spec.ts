import { expect, test } from '@playwright/test';
import { startNexus } from './fixtures/nexus';
import { AppPage } from './pages/app-page';

test('shows a Docker banner with the reason when the engine cannot be reached', async ({ page }) => {
  const nexus = await startNexus({ NEXUS_DOCKER_SOCKET: '/nonexistent/docker.sock' });
  try {
    const app = new AppPage(page);
    await app.open(nexus.loginUrl);
    await expect(page.getByTestId('banner-docker')).toContainText('Docker is not reachable');
    await expect(app.status('docker')).toContainText('unavailable');
  } finally {
    await nexus.stop();
  }
});
