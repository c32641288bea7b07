/**
 * The inspector server's guard (a page on this machine only: DNS rebinding and other sites'
 * pages refused), its event stream, and a port in use. Requests go out with node:http, so the
 * Host and Origin headers are exactly what a rebound or foreign page would send.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subject } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../../src/index';
import { InspectorListenError, InspectorModel, refusalOf, serveInspector, startInspector, type Inspector, type InspectorChange } from '../../src/devtools/index';
import { flightRecorder } from '../../src/jsonl/index';
import { inspectorPage } from '../../src/devtools/inspector-page';
import { installedBrowserPackages, vendorFile } from '../../src/devtools/inspector-vendor';
import { Counter, NoteAdded, Notes } from '../fixtures';

const dir = mkdtempSync(join(tmpdir(), 'rxslice-inspector-server-'));
const file = join(dir, 'run.jsonl');
let inspector: Inspector;

beforeAll(async () => {
  const session = createSession({ slices: [Notes, Counter] });
  const recorder = flightRecorder(session, { file });
  session.dispatch(NoteAdded({ id: 1, text: 'a secret from the transcript' }));
  recorder.close();
  session.dispose();
  inspector = await startInspector({ file, definitions: { slices: [Notes, Counter] } });
});
afterAll(async () => {
  await inspector?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A GET with exactly these headers (fetch would not let a test set Host). */
function get(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, setHost: false }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the inspector answers this machine only', () => {
  it('listens on 127.0.0.1 by default', () => {
    expect(inspector.url).toBe(`http://127.0.0.1:${inspector.port}/`);
  });

  it('refuses a foreign Host header (DNS rebinding) with 403 and no data', async () => {
    const own = await get(inspector.port, '/api/events?offset=0&limit=10', { host: `127.0.0.1:${inspector.port}` });
    expect(own.status).toBe(200);
    expect(own.body).toContain('notes/added');
    for (const host of [`evil.example:${inspector.port}`, 'evil.example', `127.0.0.1.evil.example:${inspector.port}`, `127.0.0.1:${inspector.port + 1}`]) {
      for (const path of ['/', '/api/events?offset=0&limit=10', '/api/state?seq=1', '/api/stream']) {
        const res = await get(inspector.port, path, { host });
        expect([host, path, res.status]).toEqual([host, path, 403]);
        expect(res.body).toMatch(/^rxslice inspector: refused: the Host header .* does not name this server .*DNS rebinding/);
        expect(res.body).not.toContain('secret');
        expect(res.body).not.toContain('notes/added');
      }
    }
    // No Host at all: Node's server answers 400 before the guard sees it (requireHostHeader).
    const noHost = await get(inspector.port, '/api/events?offset=0&limit=10', {});
    expect([400, 403]).toContain(noHost.status);
    expect(noHost.body).not.toContain('notes/added');
    expect(refusalOf({}, { port: 4400, host: '127.0.0.1' })).toMatch(/no Host header/);
  });

  it('refuses a foreign Origin and cross-site reads; accepts its own origin and localhost', async () => {
    const host = `127.0.0.1:${inspector.port}`;
    for (const origin of ['http://evil.example', `http://evil.example:${inspector.port}`, 'null', `http://localhost:${inspector.port + 1}`, `https://127.0.0.1:${inspector.port}`]) {
      const res = await get(inspector.port, '/api/state?seq=1', { host, origin });
      expect([origin, res.status]).toEqual([origin, 403]);
      expect(res.body).toContain(`the Origin ${JSON.stringify(origin)} is not this server's`);
      expect(res.body).not.toContain('secret');
    }
    const crossSite = await get(inspector.port, '/api/state?seq=1', { host, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' });
    expect(crossSite.status).toBe(403);
    for (const [h, origin] of [
      [host, `http://127.0.0.1:${inspector.port}`],
      [`localhost:${inspector.port}`, `http://localhost:${inspector.port}`],
      [`[::1]:${inspector.port}`, `http://[::1]:${inspector.port}`],
    ] as const) {
      const res = await get(inspector.port, '/api/state?seq=1', { host: h, origin, 'sec-fetch-site': 'same-origin' });
      expect([h, res.status]).toEqual([h, 200]);
      expect(res.body).toContain('a secret from the transcript');
    }
    // A link followed from another site shows the page (a navigation reads nothing back).
    expect((await get(inspector.port, '/', { host, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' })).status).toBe(200);
  });

  it('the page may load and connect to nothing but this server', async () => {
    const page = await get(inspector.port, '/', { host: `127.0.0.1:${inspector.port}` });
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['content-security-policy']).toContain("connect-src 'self'");
    // No address of another machine in the page: its scripts and styles come from /vendor/.
    expect(page.body.match(/\b(?:https?:)?\/\/[a-z0-9.-]+/gi) ?? []).toEqual([]);
  });

  it('refusalOf: names, addresses and allowed hosts', () => {
    const self = { port: 4400, host: '127.0.0.1' };
    expect(refusalOf({ host: 'localhost:4400' }, self)).toBeUndefined();
    expect(refusalOf({ host: 'app.localhost:4400' }, self)).toBeUndefined();
    expect(refusalOf({ host: '192.168.1.9:4400' }, self)).toBeUndefined();
    expect(refusalOf({ host: 'devbox:4400' }, self)).toMatch(/does not name this server/);
    expect(refusalOf({ host: 'devbox:4400', origin: 'http://devbox:4400' }, { ...self, allowedHosts: ['devbox'] })).toBeUndefined();
    expect(refusalOf({ host: 'localhost:80' }, self)).toMatch(/does not name this server/);
    expect(refusalOf({ host: 'localhost:4400/x' }, self)).toMatch(/does not name this server/);
  });
});

describe('serveInspector', () => {
  it('streams the session list, then each change, as server-sent events', async () => {
    const changes = new Subject<InspectorChange>();
    const model = new InspectorModel(file, { slices: [Notes, Counter] });
    const server = await serveInspector({
      source: { sessions: () => [{ id: 'a', label: 'a', file, live: true, closed: false, size: model.recording.size, lastSeq: model.recording.lastSeq }], model: (id) => (id === 'a' ? model : undefined), changes$: changes },
      port: 0,
    });
    try {
      const text = await new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: server.port, path: '/api/stream' }, (res) => {
          expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
          let body = '';
          res.on('data', (d: Buffer) => {
            body += d.toString();
            if (body.includes('event: sessions') && !body.includes('event: events')) changes.next({ kind: 'events', session: 'a', lastSeq: 9, size: 9 });
            if (body.includes('event: reset')) {
              req.destroy();
              resolve(body);
            } else if (body.includes('event: events')) changes.next({ kind: 'reset', session: 'a' });
          });
        });
        req.on('error', reject);
        req.end();
      });
      expect(text).toBe(
        'retry: 1000\n\n' +
          `event: sessions\ndata: [{"id":"a","label":"a","file":${JSON.stringify(file)},"live":true,"closed":false,"size":1,"lastSeq":1}]\n\n` +
          'event: events\ndata: {"kind":"events","session":"a","lastSeq":9,"size":9}\n\n' +
          'event: reset\ndata: {"kind":"reset","session":"a"}\n\n',
      );
      const unknown = await get(server.port, '/api/summary?session=b', { host: `127.0.0.1:${server.port}` });
      expect(unknown.status).toBe(400);
      expect(JSON.parse(unknown.body).error.message).toBe('no session "b" (GET /api/sessions lists them)');
    } finally {
      await server.close();
    }
  });

  it('a port in use is an InspectorListenError that says what to do; the other server goes on', async () => {
    const other = createServer((_req, res) => res.end('other'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const port = (other.address() as AddressInfo).port;
    try {
      const error = await startInspector({ file, definitions: { slices: [Notes, Counter] }, port }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InspectorListenError);
      expect(error).toMatchObject({ code: 'INSPECTOR_LISTEN', port, host: '127.0.0.1' });
      expect((error as Error).message).toBe(`The inspector cannot start: port ${port} on 127.0.0.1 is in use (another inspector or server listens there): choose another with --port <n>, or --port 0 for any free port.`);
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('other');
    } finally {
      other.close();
    }
  });
});

describe('the page and the optional browser packages', () => {
  const none = (specifier: string): string => {
    throw Object.assign(new Error(`Cannot find module '${specifier}'`), { code: 'MODULE_NOT_FOUND' });
  };
  const only = (pkg: string) => (specifier: string) => (specifier.startsWith(pkg + '/') ? `/nm/${specifier}` : none(specifier));

  it('knows which are installed, and the page loads only those', () => {
    expect(installedBrowserPackages(none)).toEqual({ uplot: false, mermaid: false, layoutElk: false });
    expect(installedBrowserPackages(only('uplot'))).toEqual({ uplot: true, mermaid: false, layoutElk: false });
    const bare = inspectorPage(installedBrowserPackages(none));
    expect(bare).not.toMatch(/href="\/vendor\/|src="\/vendor\//);
    expect(bare).toContain('const INSTALLED = {"uplot":false,"mermaid":false,"layoutElk":false};');
    expect(inspectorPage({ uplot: true, mermaid: true, layoutElk: true })).toContain('<script src="/vendor/uPlot.iife.min.js"></script>');
  });

  it('serves the ELK layout\'s chunks from its dist folder, and nothing outside it', () => {
    const resolve = only('@mermaid-js/layout-elk');
    expect(vendorFile(resolve, '/vendor/layout-elk/chunks/a/chunk-X.mjs')).toEqual({ file: '/nm/@mermaid-js/layout-elk/dist/chunks/a/chunk-X.mjs', type: 'text/javascript; charset=utf-8' });
    for (const bad of ['/vendor/layout-elk/../package.json', '/vendor/layout-elk/a/../../x.mjs', '/vendor/layout-elk/x.js', '/vendor/layout-elk/%2e%2e/x.mjs', '/vendor/other.js'])
      expect(vendorFile(resolve, bad), bad).toBeUndefined();
    expect(vendorFile(none, '/vendor/layout-elk/x.mjs')).toBe('missing');
    expect(vendorFile(none, '/vendor/mermaid.min.js')).toBe('missing');
  });
});
