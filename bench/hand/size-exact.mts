// Exact min and gzip bytes of the size fixtures named on the command line (default: the two quick starts).
import { bundleCost } from '../../test/size/bundle';
const names = process.argv.slice(2);
for (const fixture of names.length > 0 ? names : ['store-quick-start', 'quick-start']) {
  const cost = await bundleCost({ file: `test/size/fixtures/${fixture}.ts` });
  console.log(fixture, cost.min, cost.gzip);
}
