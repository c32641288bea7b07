/**
 * `npm run test:e2e`: the browser tests. Installs Debian's Chromium when /usr/bin/chromium is
 * missing (apt-get, as root; otherwise it says what to install: scripts/ensure-chromium.mjs),
 * then runs vitest on test/e2e. CHROMIUM_PATH names another Chromium or Chrome binary.
 */
import { spawnSync } from 'node:child_process';
import { ensureChromium } from './ensure-chromium.mjs';

try {
  ensureChromium('test:e2e');
} catch (e) {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
}
const r = spawnSync('npx', ['vitest', 'run', '--config', 'vitest.e2e.config.ts'], { stdio: 'inherit' });
process.exit(r.status ?? 1);
