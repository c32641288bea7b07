import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { isRxSliceError } from '../internal/errors';
import { InspectorModel, type InspectorDefinitions } from './inspector-model';
import { INSPECTOR_PAGE } from './inspector-page';

/** Options of {@link startInspector}. */
export interface InspectorOptions {
  /** The flight recording to inspect (written by `flightRecorder`). */
  readonly file: string;
  /** Its slice definitions, replay session and statecharts. */
  readonly definitions: InspectorDefinitions;
  /** TCP port; 0 (default) picks a free one. */
  readonly port?: number;
  /** Interface to listen on. Default `'127.0.0.1'` (this machine only). */
  readonly host?: string;
}

/** A running inspector server. */
export interface Inspector {
  /** `http://host:port/`: open it in a browser. */
  readonly url: string;
  readonly port: number;
  readonly model: InspectorModel;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/** The browser libraries the page loads, served from this installation's node_modules (no network). */
const VENDOR: Readonly<Record<string, { readonly module: string; readonly type: string }>> = {
  '/vendor/mermaid.min.js': { module: 'mermaid/dist/mermaid.min.js', type: 'text/javascript; charset=utf-8' },
  '/vendor/uPlot.iife.min.js': { module: 'uplot/dist/uPlot.iife.min.js', type: 'text/javascript; charset=utf-8' },
  '/vendor/uPlot.min.css': { module: 'uplot/dist/uPlot.min.css', type: 'text/css; charset=utf-8' },
};

const intParam = (url: URL, name: string, fallback?: number): number => {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') {
    if (fallback !== undefined) return fallback;
    throw new BadRequest(`query parameter "${name}" is required`);
  }
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new BadRequest(`query parameter "${name}" must be an integer, got ${JSON.stringify(raw)}`);
  return n;
};

class BadRequest extends Error {}

/**
 * Serves the inspector page for a flight recording on a local HTTP server: an event list
 * (virtualised, filtered by type and text), the state of every slice at any event (time travel),
 * the diff between two events, the statecharts drawn with Mermaid with the active configuration
 * highlighted, an effects and sagas timeline, and charts of slice sizes, numeric state fields
 * (token usage) and phases over the recording.
 *
 * @remarks Works offline: the page and its libraries (mermaid, uPlot: optional peers; without
 * them the page shows the Mermaid source and no charts) are served by this server from the local
 * installation. Listens on 127.0.0.1 unless `host` says otherwise. The recording is read once at
 * start (`readRecording`, O(file size)); the page asks a JSON API (`/api/summary`, `/api/events`,
 * `/api/state?seq=`, `/api/diff?from=&to=`, `/api/machines?seq=`, `/api/timeline`,
 * `/api/series`, `/api/types`, `/api/envelope?seq=`), which answers errors with status 400 and
 * `{ error: { name, code, message } }`. Source: the seed's "Sessions" (the debug UI reads the
 * flight recorder and shows the session state at each point).
 * @throws `RecordingError` (before listening) when the recording cannot be read.
 * @example
 * ```ts
 * const inspector = await startInspector({ file: 'run.jsonl', definitions: { slices: [Plan], machines: [Phases] } });
 * console.log(inspector.url); // http://127.0.0.1:41234/
 * await inspector.close();
 * ```
 */
export async function startInspector(options: InspectorOptions): Promise<Inspector> {
  const model = new InspectorModel(options.file, options.definitions);
  // This module is built as ESM and as CommonJS (where import.meta is empty): resolve from either.
  const require = createRequire(typeof __filename === 'string' ? __filename : import.meta.url);
  const server = createServer((req, res) => {
    void handle(model, require, req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/`,
    port: address.port,
    model,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(model: InspectorModel, require: NodeRequire, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  try {
    if (req.method !== 'GET') return send(res, 405, 'text/plain; charset=utf-8', 'GET only');
    if (url.pathname === '/' || url.pathname === '/index.html') return send(res, 200, 'text/html; charset=utf-8', INSPECTOR_PAGE);
    const vendor = VENDOR[url.pathname];
    if (vendor !== undefined) {
      let body: Buffer;
      try {
        body = await readFile(require.resolve(vendor.module));
      } catch {
        return send(res, 404, 'text/plain; charset=utf-8', `${vendor.module} is not installed`);
      }
      return send(res, 200, vendor.type, body, 'max-age=3600');
    }
    if (!url.pathname.startsWith('/api/')) return send(res, 404, 'text/plain; charset=utf-8', 'not found');
    return json(res, 200, api(model, url));
  } catch (e) {
    const error = e instanceof BadRequest ? { name: 'BadRequest', code: 'BAD_REQUEST', message: e.message } : isRxSliceError(e) ? { name: e.name, code: e.code, message: e.message } : undefined;
    if (error !== undefined) return json(res, 400, { error });
    return json(res, 500, { error: { name: 'Error', code: 'INTERNAL', message: e instanceof Error ? e.message : String(e) } });
  }
}

function api(model: InspectorModel, url: URL): unknown {
  switch (url.pathname) {
    case '/api/summary':
      return model.summary();
    case '/api/types':
      return model.types();
    case '/api/events':
      return model.events({
        offset: intParam(url, 'offset', 0),
        limit: intParam(url, 'limit', 200),
        type: url.searchParams.get('type') ?? undefined,
        text: url.searchParams.get('text') ?? undefined,
      });
    case '/api/envelope': {
      const env = model.envelope(intParam(url, 'seq'));
      if (env === undefined) throw new BadRequest('no envelope with that seq in the recording');
      return env;
    }
    case '/api/state':
      return model.state(intParam(url, 'seq'));
    case '/api/diff':
      return model.diff(intParam(url, 'from'), intParam(url, 'to'));
    case '/api/machines':
      return model.machines(intParam(url, 'seq'));
    case '/api/timeline':
      return model.timeline();
    case '/api/series':
      return model.series(intParam(url, 'points', 200));
    default:
      throw new BadRequest(`no API at ${url.pathname}`);
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, cache = 'no-store'): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': cache, 'x-content-type-options': 'nosniff' });
  res.end(body);
}
