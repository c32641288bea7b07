import { isIP } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';

/** What a local server answers to (see {@link refusalOf}). */
export interface LocalServerIdentity {
  /** The port the server listens on. */
  readonly port: number;
  /** The address or name it was told to listen on (`127.0.0.1` by default). */
  readonly host: string;
  /** More host names the server answers to (a name in /etc/hosts, a tunnel's name). */
  readonly allowedHosts?: readonly string[];
}

/**
 * The host names a local server answers to without being told: `localhost` and `*.localhost`
 * (which resolve to the loopback interface), any IP address literal (a DNS rebinding attack needs
 * a name: an address cannot be rebound), the name it listens on, and `allowedHosts`.
 */
function isOwnHostname(hostname: string, self: LocalServerIdentity): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  if (name === 'localhost' || name.endsWith('.localhost') || isIP(bare) !== 0) return true;
  if (name === self.host.toLowerCase()) return true;
  return (self.allowedHosts ?? []).some((h) => h.toLowerCase() === name);
}

/** `host[:port]` split; the port is `defaultPort` when absent; `undefined` when it is not a host. */
function splitHost(value: string, defaultPort: number): { hostname: string; port: number } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/\s]+)(?::(\d{1,5}))?$/.exec(value);
  if (m === null) return undefined;
  return { hostname: m[1] as string, port: m[2] === undefined ? defaultPort : Number(m[2]) };
}

/**
 * Why a request must be refused by a server meant for this machine only, or `undefined` when it
 * may be answered: the guard of development servers against DNS rebinding and cross-site reads.
 *
 * - `Host` must be present and name this server: an own host name (see above) and its port. A
 *   page of `http://evil.example:4400/` whose name was rebound to 127.0.0.1 sends
 *   `Host: evil.example:4400` and is refused.
 * - `Origin`, when sent (fetch, EventSource and forms from another page send it), must be
 *   `http://<own host name>:<port>`: another site, or another local server's page, is refused.
 * - `Sec-Fetch-Site: cross-site` (browsers send it with every request) is refused unless the
 *   request is a navigation (a link the user followed shows the page; it reads nothing back).
 *
 * @remarks Pure; O(header length).
 * @example
 * ```ts
 * refusalOf({ host: 'evil.example:4400' }, { port: 4400, host: '127.0.0.1' });
 * // 'the Host header "evil.example:4400" does not name this server ...'
 * refusalOf({ host: '127.0.0.1:4400' }, { port: 4400, host: '127.0.0.1' }); // undefined
 * ```
 */
export function refusalOf(headers: IncomingHttpHeaders, self: LocalServerIdentity): string | undefined {
  const own = `http://127.0.0.1:${self.port} or http://localhost:${self.port}`;
  const host = headers.host;
  if (host === undefined || host === '') return `the request has no Host header; open ${own}`;
  const h = splitHost(host, 80);
  if (h === undefined || !isOwnHostname(h.hostname, self) || h.port !== self.port) {
    return `the Host header ${JSON.stringify(host)} does not name this server (it answers to ${own}; a name that is not this machine's is refused to guard against DNS rebinding)`;
  }
  const origin = headers.origin;
  if (origin !== undefined) {
    let ok = false;
    if (origin.startsWith('http://')) {
      const o = splitHost(origin.slice('http://'.length), 80);
      ok = o !== undefined && isOwnHostname(o.hostname, self) && o.port === self.port;
    }
    if (!ok) return `the Origin ${JSON.stringify(origin)} is not this server's (${own}): pages of other sites and servers may not read it`;
  }
  const site = headers['sec-fetch-site'];
  if (site === 'cross-site' && headers['sec-fetch-mode'] !== 'navigate') {
    return 'the request comes from another site (Sec-Fetch-Site: cross-site): pages of other sites may not read this server';
  }
  return undefined;
}
