/**
 * `npm run test:e2e`: the browser tests. Installs Debian's Chromium when /usr/bin/chromium is
 * missing (apt-get, as root; otherwise it says what to install), then runs vitest on test/e2e.
 * CHROMIUM_PATH names another Chromium or Chrome binary.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const chromium = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
if (!existsSync(chromium)) {
  if (process.getuid?.() !== 0) {
    console.error(`test:e2e: ${chromium} is missing. Install Chromium (Debian: sudo apt-get install -y chromium) or set CHROMIUM_PATH.`);
    process.exit(1);
  }
  console.log('test:e2e: installing Debian chromium (apt-get)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', 'chromium']]) {
    const r = spawnSync('apt-get', args, { stdio: 'inherit', env });
    if (r.status !== 0) {
      console.error(`test:e2e: apt-get ${args.join(' ')} failed (exit ${String(r.status)})`);
      process.exit(1);
    }
  }
}
const r = spawnSync('npx', ['vitest', 'run', '--config', 'vitest.e2e.config.ts'], { stdio: 'inherit' });
process.exit(r.status ?? 1);
