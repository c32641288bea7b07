/**
 * The property accesses of a bundle that V8 saw with more than one hidden class: run a bundled
 * hand script with `node --log-ic` (V8 writes `isolate-…-v8.log` into the current directory), then
 * `npx tsx bench/hand/polymorphic-sites.ts <v8.log> <bundle.mjs>`. Prints each site whose inline
 * cache went polymorphic (P, 2-4 classes) or megamorphic (N), with its line of the bundle: a
 * helper shared by values of different shapes (e.g. one generic function over arrays of objects and
 * of numbers, issue 36's `kept`) shows up here and stays slower in optimized code. Sites of
 * other scripts (Node's own) are left out when the line does not hold the property's name.
 */
import { readFileSync } from 'node:fs';

const [log, bundle] = process.argv.slice(2);
if (log === undefined || bundle === undefined) {
  console.error('Usage: npx tsx bench/hand/polymorphic-sites.ts <v8.log> <bundle.mjs>');
  process.exit(2);
}
const lines = readFileSync(bundle, 'utf8').split('\n');
const sites = new Map<string, { count: number; state: string; source: string }>();
for (const entry of readFileSync(log, 'utf8').split('\n')) {
  // LoadIC,pc,time,line,column,old state,new state,map,key,modifier,slow reason
  const [type, , , line, column, , state, , key = ''] = entry.split(',');
  if (type === undefined || !type.endsWith('IC') || (state !== 'P' && state !== 'N')) continue;
  const source = lines[Number(line) - 1];
  if (source === undefined || (!/^\d+$/.test(key) && !source.includes(key))) continue;
  const id = `${line}:${column} ${type} ${key}`;
  const site = sites.get(id) ?? { count: 0, state, source: source.trim().slice(0, 110) };
  site.count++;
  site.state = state;
  sites.set(id, site);
}
for (const [id, site] of [...sites].sort((x, y) => parseInt(x[0]) - parseInt(y[0]))) console.log(`${id} -> ${site.state} (${site.count}×) | ${site.source}`);
