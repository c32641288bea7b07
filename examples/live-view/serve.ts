/**
 * Serves the live view on 127.0.0.1: the page, its bundle (built once at start) and the bundled
 * transcripts of examples/data/ under /data/.
 *
 *   npm run example:live-view                 then open the URL it prints
 *   npm run example:live-view -- --port 8080
 *
 * Open `?transcript=<file in examples/data>&delayMs=<ms between events>` to replay another one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { buildLiveView, INDEX_HTML } from './build';

const DATA = fileURLToPath(new URL('../data/', import.meta.url));

/** A running live-view server. */
export interface LiveViewServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Builds the bundle and starts the server (`port` 0: any free port). */
export async function startLiveView(port = 0): Promise<LiveViewServer> {
  const bundle = await buildLiveView();
  const transcripts = new Set(readdirSync(DATA).filter((f) => f.endsWith('.jsonl')));
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const send = (status: number, type: string, body: string | Buffer): void => void res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
    const file = /^\/data\/([^/]+)$/.exec(path)?.[1];
    if (path === '/') send(200, 'text/html; charset=utf-8', INDEX_HTML);
    else if (path === '/app.js') send(200, 'text/javascript; charset=utf-8', bundle);
    else if (file !== undefined && transcripts.has(file)) send(200, 'application/x-ndjson; charset=utf-8', readFileSync(`${DATA}${file}`));
    else send(404, 'text/plain', 'not found');
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/`,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const i = process.argv.indexOf('--port');
  const { url } = await startLiveView(i > 0 ? Number(process.argv[i + 1]) : 0);
  console.log(`live view at ${url} (Ctrl-C to stop)`);
}
