// Child process of the watch crash test: the `rxslice` command line (bundled by the test with
// esbuild), run on this process's argv, e.g. `watch <file> --store <dir> --json`.
import { main } from '../../src/cli/main';

void main();
