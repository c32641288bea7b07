// Child process of the watch crash test: appends the bytes of <source> to <target> in chunks of
// 1-400 bytes (so lines are split anywhere) at irregular intervals (0-30 ms), deterministic for
// <seed> (mulberry32), then prints `done <bytes>` and exits.
import { appendFileSync, readFileSync } from 'node:fs';

const [source, target, seedText] = process.argv.slice(2);
let seed = Number(seedText) >>> 0;
const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const bytes = readFileSync(source);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let at = 0;
while (at < bytes.length) {
  const n = 1 + Math.floor(random() * 400);
  appendFileSync(target, bytes.subarray(at, at + n));
  at += n;
  await sleep(Math.floor(random() * 30));
}
process.stdout.write(`done ${bytes.length}\n`);
