import type { Readable } from 'node:stream';

/** Calls `onLine` with each complete line a child process writes to `stream` (UTF-8, `\n`-separated). */
export function onLines(stream: Readable | null, onLine: (line: string) => void): void {
  let rest = '';
  stream?.setEncoding('utf8');
  stream?.on('data', (chunk: string) => {
    rest += chunk;
    const parts = rest.split('\n');
    rest = parts.pop() ?? '';
    for (const line of parts) onLine(line);
  });
}
