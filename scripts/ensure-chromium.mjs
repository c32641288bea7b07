// Chromium for the browser checks (`npm run test:e2e`, the apps of `npm run check:git-install`):
// Debian's package, installed with apt-get when /usr/bin/chromium is missing and we are root;
// otherwise the error says what to install. CHROMIUM_PATH names another Chromium or Chrome binary.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Returns the path of a Chromium binary, installing Debian's `chromium` first when it is missing.
 * @param {string} label - who asks (the command's name, for the messages)
 * @returns {string} the binary's path
 * @throws {Error} when Chromium is missing and cannot be installed (not root, or apt-get failed)
 */
export function ensureChromium(label) {
  const chromium = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
  if (existsSync(chromium)) return chromium;
  if (process.getuid?.() !== 0) {
    throw new Error(`${label}: ${chromium} is missing. Install Chromium (Debian: sudo apt-get install -y chromium) or set CHROMIUM_PATH.`);
  }
  console.log(`${label}: installing Debian chromium (apt-get)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', 'chromium']]) {
    const r = spawnSync('apt-get', args, { stdio: 'inherit', env });
    if (r.status !== 0) throw new Error(`${label}: apt-get ${args.join(' ')} failed (exit ${String(r.status)})`);
  }
  return chromium;
}

/** The flags every headless run here uses (no sandbox as root, no GPU, no background traffic). */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
