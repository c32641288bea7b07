import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Observable } from 'rxjs';
import { isRxSliceError, RxSliceError } from '../internal/errors';
import { InspectorModel } from './inspector-model';
import type { InspectorDefinitions } from './inspector-types';
import { inspectorPage } from './inspector-page';
import { installedBrowserPackages, vendorFile } from './inspector-vendor';
import { refusalOf, type LocalServerIdentity } from './local-request-guard';
import { clip, quote } from '../internal/quote';

/** Where an inspector listens, and which requests it answers (see `refusalOf`). */
export interface InspectorListenOptions {
  /** TCP port; 0 picks a free one. Default 0. */
  readonly port?: number;
  /** Interface to listen on. Default `'127.0.0.1'` (this machine only). */
  readonly host?: string;
  /**
   * More host names the page may be opened under (besides `localhost`, IP addresses and `host`):
   * requests naming any other host, or sent from another origin, are refused with 403 (the DNS
   * rebinding guard). Default: none.
   */
  readonly allowedHosts?: readonly string[];
}

/** Options of {@link startInspector}. */
export interface InspectorOptions extends InspectorListenOptions {
  /** The flight recording to inspect (written by `flightRecorder`). */
  readonly file: string;
  /** Its slice definitions, replay session and statecharts. */
  readonly definitions: InspectorDefinitions;
}

/** One session an inspector serves: a recording, or a session followed live. */
export interface InspectorSessionInfo {
  /** Its id in the API (`?session=`). */
  readonly id: string;
  /** What the page shows for it (a transcript's label, a recording's file name). */
  readonly label: string;
  /** The file it comes from (the recording, or the transcript followed). */
  readonly file: string;
  /** The label of its parent session (a subagent's transcript). */
  readonly parent?: string;
  /** Whether it is followed live (new events arrive). */
  readonly live: boolean;
  /** Whether it stopped (its file disappeared): what it holds stays readable. */
  readonly closed: boolean;
  /** Events it holds. */
  readonly size: number;
  /** The seq of its last event. */
  readonly lastSeq: number;
}

/** What an {@link InspectorSource} tells the pages, as server-sent events of `/api/stream`. */
export type InspectorChange =
  /** The session list changed (one added, or closed): the message carries the list. */
  | { readonly kind: 'sessions' }
  /** Events of `session` were committed; it now ends at `lastSeq` and holds `size` events. */
  | { readonly kind: 'events'; readonly session: string; readonly lastSeq: number; readonly size: number }
  /** `session` started over (its transcript was truncated or replaced): read it again from the start. */
  | { readonly kind: 'reset'; readonly session: string };

/**
 * What an inspector serves: sessions, each read through an {@link InspectorModel}, and (live)
 * the changes to tell the open pages about.
 */
export interface InspectorSource {
  /** The sessions, in the order the page lists them. */
  sessions(): readonly InspectorSessionInfo[];
  /** The model of session `id`, or `undefined` when there is none. */
  model(id: string): InspectorModel | undefined;
  /** Changes, pushed to every open page (none for a recording read once). */
  readonly changes$?: Observable<InspectorChange>;
}

/** Options of {@link serveInspector}. */
export interface ServeInspectorOptions extends InspectorListenOptions {
  /** The sessions to serve. */
  readonly source: InspectorSource;
}

/** A running inspector server (see {@link serveInspector}). */
export interface InspectorServer {
  /** `http://host:port/`: open it in a browser. */
  readonly url: string;
  /** The port it listens on (the one picked when asked for 0). */
  readonly port: number;
  /** Stops listening and closes open connections (the pages' event streams included). */
  close(): Promise<void>;
}

/** A running inspector server for one recording (see {@link startInspector}). */
export interface Inspector extends InspectorServer {
  /** The model the page reads (the recording opened once). */
  readonly model: InspectorModel;
}

/** Thrown when the inspector cannot listen: the port is in use, or the address is not this machine's. */
export class InspectorListenError extends RxSliceError {
  override readonly name = 'InspectorListenError';
  constructor(
    /** The interface it was asked to listen on. */
    readonly host: string,
    /** The port it was asked for. */
    readonly port: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('INSPECTOR_LISTEN', message, options);
  }
}

/**
 * The page may load and connect to nothing but this server: what it shows never leaves the
 * machine. (Inline script and style: the page is one document; mermaid sets inline styles.)
 */
const CSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const intParam = (url: URL, name: string, fallback?: number): number => {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') {
    if (fallback !== undefined) return fallback;
    throw new BadRequest(`query parameter ${quote(name)} is required`);
  }
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new BadRequest(`query parameter ${quote(name)} must be an integer, got ${clip(JSON.stringify(raw))}`);
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
 * @remarks Works offline and keeps what it shows on this machine: the page and its libraries
 * (mermaid, uPlot, @mermaid-js/layout-elk: optional peers; without them the page shows the Mermaid
 * source and no charts, and names the command that installs each)
 * are served by this server from the local installation, and its Content-Security-Policy lets it
 * connect to nothing else. Listens on 127.0.0.1 unless `host` says otherwise, and refuses (403)
 * requests whose `Host` or `Origin` is not its own (see `refusalOf`: DNS rebinding, other sites'
 * pages). The recording is read once at start (`readRecording`, O(file size)); the page asks a
 * JSON API (`/api/summary`, `/api/events`, `/api/state?seq=`, `/api/diff?from=&to=`,
 * `/api/machines?seq=`, `/api/timeline`, `/api/series`, `/api/types`, `/api/envelope?seq=`,
 * `/api/sessions`, and the event stream `/api/stream`), which answers errors with status 400 and
 * `{ error: { name, code, message } }`. Source: the seed's "Sessions" (the debug UI reads the
 * flight recorder and shows the session state at each point).
 * @throws `RecordingError` (before listening) when the recording cannot be read;
 * {@link InspectorListenError} when the port is in use or the address cannot be listened on.
 * @example
 * ```ts
 * const inspector = await startInspector({ file: 'run.jsonl', definitions: { slices: [Plan], machines: [Phases] } });
 * console.log(inspector.url); // http://127.0.0.1:41234/
 * await inspector.close();
 * ```
 */
export async function startInspector(options: InspectorOptions): Promise<Inspector> {
  const model = new InspectorModel(options.file, options.definitions);
  const info = (): InspectorSessionInfo => ({
    id: 'recording',
    label: path.basename(options.file),
    file: options.file,
    live: false,
    closed: false,
    size: model.recording.size,
    lastSeq: model.recording.lastSeq,
  });
  const source: InspectorSource = { sessions: () => [info()], model: (id) => (id === 'recording' ? model : undefined) };
  let server: InspectorServer;
  try {
    server = await serveInspector({ ...options, source });
  } catch (e) {
    model.close();
    throw e;
  }
  // Closing the inspector releases the model's replay session too.
  return { ...server, model, close: () => server.close().then(() => model.close()) };
}

/**
 * Serves the inspector page for the sessions of `source` (see {@link startInspector} for the page
 * and its API; every API call takes `?session=<id>`, default the first session). The page lists
 * the sessions, and follows `source.changes$` through the server-sent events of `/api/stream`:
 * new events appear without a reload, the selected event is kept, and while the last event is
 * selected the selection moves with the session (the statechart shows its current phase).
 *
 * @remarks Resolves once listening. Listens on 127.0.0.1 unless `host` says otherwise; refuses
 * with 403 and a sentence (no data) any request whose `Host` or `Origin` is not its own. Each
 * open page holds one event stream: one `sessions` message at connect and on every
 * `sessions` change (the list as JSON), one `events` or `reset` message per change, a comment
 * line every 15 s to keep proxies from closing it.
 * @throws {@link InspectorListenError} when the port is in use or the address cannot be listened on.
 * @example
 * ```ts
 * const server = await serveInspector({ source: { sessions: () => [...], model: (id) => models.get(id), changes$ }, port: 4401 });
 * console.log(server.url); // http://127.0.0.1:4401/
 * ```
 */
export async function serveInspector(options: ServeInspectorOptions): Promise<InspectorServer> {
  const source = options.source;
  const host = options.host ?? '127.0.0.1';
  const wantedPort = options.port ?? 0;
  // This module is built as ESM and as CommonJS (where import.meta is empty): resolve from either.
  const require = createRequire(typeof __filename === 'string' ? __filename : import.meta.url);
  // The page loads only the optional packages installed now (a restart sees newly installed ones).
  const page = inspectorPage(installedBrowserPackages(require.resolve));
  let identity: LocalServerIdentity = { port: wantedPort, host, ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }) };
  const streams = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const refusal = refusalOf(req.headers, identity);
    if (refusal !== undefined) return send(res, 403, 'text/plain; charset=utf-8', `rxslice inspector: refused: ${refusal}.\n`);
    if (req.method === 'GET' && new URL(req.url ?? '/', 'http://localhost').pathname === '/api/stream') return openStream(source, streams, res);
    void handle(source, require, page, req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      const what =
        e.code === 'EADDRINUSE'
          ? `port ${wantedPort} on ${host} is in use (another inspector or server listens there): choose another with --port <n>, or --port 0 for any free port`
          : e.code === 'EADDRNOTAVAIL'
            ? `${host} is not an address of this machine: leave --host out to listen on 127.0.0.1`
            : e.code === 'EACCES'
              ? `listening on port ${wantedPort} needs privileges: choose a port above 1023`
              : `cannot listen on ${host}:${wantedPort} (${e.message})`;
      reject(new InspectorListenError(host, wantedPort, `The inspector cannot start: ${what}.`, { cause: e }));
    });
    server.listen(wantedPort, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  identity = { ...identity, port: address.port };
  const heartbeat = setInterval(() => {
    for (const res of streams) res.write(': keep-alive\n\n');
  }, 15_000);
  heartbeat.unref();
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address === '0.0.0.0' ? '127.0.0.1' : address.address;
  return {
    url: `http://${urlHost}:${address.port}/`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(heartbeat);
        for (const res of streams) res.end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `/api/stream`: the session list now, then every change of `source`, as server-sent events. */
function openStream(source: InspectorSource, streams: Set<ServerResponse>, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'content-security-policy': CSP });
  const write = (event: string, data: unknown): void => void res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  res.write('retry: 1000\n\n');
  write('sessions', source.sessions());
  streams.add(res);
  const subscription = source.changes$?.subscribe((change) => {
    if (change.kind === 'sessions') write('sessions', source.sessions());
    else write(change.kind, change);
  });
  res.on('close', () => {
    streams.delete(res);
    subscription?.unsubscribe();
  });
}

async function handle(source: InspectorSource, require: NodeRequire, page: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  try {
    if (req.method !== 'GET') return send(res, 405, 'text/plain; charset=utf-8', 'GET only');
    if (url.pathname === '/' || url.pathname === '/index.html') return send(res, 200, 'text/html; charset=utf-8', page);
    const vendor = url.pathname.startsWith('/vendor/') ? vendorFile(require.resolve, url.pathname) : undefined;
    if (vendor === 'missing') return send(res, 404, 'text/plain; charset=utf-8', `${url.pathname}: its package is not installed`);
    if (vendor !== undefined) {
      let body: Buffer;
      try {
        body = await readFile(vendor.file);
      } catch {
        return send(res, 404, 'text/plain; charset=utf-8', 'not found');
      }
      return send(res, 200, vendor.type, body, 'max-age=3600');
    }
    if (!url.pathname.startsWith('/api/')) return send(res, 404, 'text/plain; charset=utf-8', 'not found');
    if (url.pathname === '/api/sessions') return json(res, 200, source.sessions());
    const id = url.searchParams.get('session') ?? source.sessions()[0]?.id;
    const model = id === undefined ? undefined : source.model(id);
    if (model === undefined) throw new BadRequest(id === undefined ? 'no session yet: nothing is being followed' : `no session ${JSON.stringify(id)} (GET /api/sessions lists them)`);
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
  res.writeHead(status, { 'content-type': type, 'cache-control': cache, 'x-content-type-options': 'nosniff', 'content-security-policy': CSP, 'referrer-policy': 'no-referrer' });
  res.end(body);
}
