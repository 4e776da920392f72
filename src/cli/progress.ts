// Progress of a long CLI job on stderr: a live bar (counts, rate, ETA) on a terminal, plain lines
// otherwise (a log file or CI gets one line per tenth of the work, not carriage-return noise).
import cliProgress from 'cli-progress';

export interface Progress {
  /** one unit done (`failed`: it did not succeed) */
  tick(failed: boolean): void;
  /** a message that must not be drawn over by the bar */
  log(line: string): void;
  stop(): void;
}

export interface ProgressOptions {
  total: number;
  stream: NodeJS.WriteStream;
  /** draw the live bar (a terminal) instead of plain lines */
  tty: boolean;
  /** milliseconds, for the rate and ETA; injectable for tests */
  now?: () => number;
  unit?: string;
}

export function createProgress(options: ProgressOptions): Progress {
  return options.tty ? barProgress(options) : lineProgress(options);
}

const seconds = (ms: number) => (ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 1000)}s`);

/** Units done and failed so far, and the rate since the start (per second). */
function tally(now: () => number) {
  const start = now();
  const counts = { done: 0, failed: 0, rate: 0 };
  return (failed: boolean) => {
    counts.done++;
    if (failed) counts.failed++;
    counts.rate = (counts.done * 1000) / Math.max(1, now() - start);
    return counts;
  };
}

function lineProgress({ total, stream, now = Date.now, unit = 'rows' }: ProgressOptions): Progress {
  const every = Math.max(1, Math.ceil(total / 10));
  const count = tally(now);
  return {
    tick(f) {
      const { done, failed, rate } = count(f);
      if (done % every !== 0 && done !== total) return;
      const eta = done < total ? `, ETA ${seconds(((total - done) * 1000) / rate)}` : '';
      stream.write(
        `progress: ${done}/${total} ${unit} (${Math.floor((done * 100) / total)}%), ${rate.toFixed(1)} ${unit}/s${eta}, ${failed} failed\n`,
      );
    },
    log: (line) => stream.write(`${line}\n`),
    stop() {},
  };
}

function barProgress({ total, stream, now = Date.now, unit = 'rows' }: ProgressOptions): Progress {
  const count = tally(now);
  const bars = new cliProgress.MultiBar(
    {
      stream,
      // Fits 80 columns (longer lines are cut, not wrapped): 200/200 rows, 1234.5/s, ETA 1h20m.
      format: `{bar} {percentage}% {value}/{total} ${unit} | {rate}/s | ETA {eta_formatted} | {failed} failed`,
      barsize: 20,
      hideCursor: true,
      etaBuffer: 50,
      fps: 10,
    },
    cliProgress.Presets.shades_classic,
  );
  const bar = bars.create(total, 0, { rate: '0.0', failed: 0 });
  return {
    tick(f) {
      const { done, failed, rate } = count(f);
      bar.update(done, { rate: rate.toFixed(1), failed });
    },
    log(line) {
      // MultiBar writes logged lines on its next redraw only: redraw now, so none is lost at the end.
      bars.log(`${line}\n`);
      bars.update();
    },
    stop: () => bars.stop(),
  };
}
