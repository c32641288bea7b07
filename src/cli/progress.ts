import cliProgress from 'cli-progress';

/** Where a command writes. `stderr.isTTY` decides between a progress bar and plain lines. */
export interface CliIO {
  /** `isTTY` (and `columns`) decide whether `rxslice watch` draws its live table. */
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean; readonly columns?: number };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean; readonly columns?: number };
  /** The directory relative paths are resolved against. */
  readonly cwd: string;
}

/** Progress of one piece of work with a known total. */
export interface Progress {
  update(done: number): void;
  /** Ends the bar (or prints the last plain line when the work took over a second). */
  stop(): void;
}

/** Work shorter than this shows no progress at all (ms). */
const QUIET_MS = 1000;
/** Plain progress lines (not a terminal) are printed at most this often (ms). */
const LINE_EVERY_MS = 5000;

const rate = (done: number, ms: number): string => `${Math.round(done / Math.max(ms / 1000, 1e-3)).toLocaleString('en-US')}/s`;

/**
 * Progress for work of `total` units (`unit`: "events"), shown on stderr only once the work has
 * lasted over a second: a cli-progress bar (count, rate, ETA) when stderr is a terminal, plain
 * lines every 5 s otherwise (CI logs stay readable), and a closing line with count and rate.
 */
export function progress(io: CliIO, label: string, total: number, unit: string): Progress {
  const started = Date.now();
  let bar: cliProgress.SingleBar | undefined;
  let lastLine = started;
  let done = 0;
  let shown = false;
  const tty = io.stderr.isTTY === true;
  return {
    update(n) {
      done = n;
      const now = Date.now();
      if (now - started < QUIET_MS) return;
      shown = true;
      if (tty) {
        if (bar === undefined) {
          bar = new cliProgress.SingleBar(
            {
              stream: io.stderr as NodeJS.WritableStream,
              format: `${label} [{bar}] {value}/{total} ${unit} | {rate} | ETA {eta_formatted}`,
              hideCursor: true,
              clearOnComplete: false,
            },
            cliProgress.Presets.shades_classic,
          );
          bar.start(total, n, { rate: rate(n, now - started) });
        }
        bar.update(n, { rate: rate(n, now - started) });
      } else if (now - lastLine >= LINE_EVERY_MS) {
        lastLine = now;
        const eta = n > 0 ? Math.round(((total - n) * (now - started)) / n / 1000) : 0;
        io.stderr.write(`${label}: ${n.toLocaleString('en-US')}/${total.toLocaleString('en-US')} ${unit} (${rate(n, now - started)}, ETA ${eta}s)\n`);
      }
    },
    stop() {
      if (bar !== undefined) {
        bar.update(done);
        bar.stop();
      } else if (shown && !tty) {
        const ms = Date.now() - started;
        io.stderr.write(`${label}: ${done.toLocaleString('en-US')} ${unit} in ${(ms / 1000).toFixed(1)}s (${rate(done, ms)})\n`);
      }
    },
  };
}
