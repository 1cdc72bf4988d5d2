/**
 * Builds the worker image from resources/worker on the offline base image (NEXUS_TEST_BASE_IMAGE,
 * else scripts/build-base-image.sh) exactly as core would, and prints its content tag. Cached: a
 * no-op when that tag exists. Run after `npm run build` so dist/worker/nexus-mcp.cjs is included.
 * Usage: node --import tsx scripts/build-worker-image.ts
 */
import { ensureTestWorkerImage } from '../test/helpers/docker';

const started = Date.now();
const tag = await ensureTestWorkerImage();
process.stderr.write(`worker image ${tag} ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
process.stdout.write(`${tag}\n`);
