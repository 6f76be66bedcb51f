// A progress bar for long CLI jobs (imports, exports, index builds), on a terminal only: in
// scripts and pipes the final report says everything.
import cliProgress from 'cli-progress';
import type { CliIO } from './context.ts';

export interface Progress {
  update(done: number, total: number, label?: string): void;
  stop(): void;
}

const SILENT: Progress = { update: () => {}, stop: () => {} };

export function progressBar(io: CliIO, title: string): Progress {
  if (!io.isTTY) return SILENT;
  const bar = new cliProgress.SingleBar(
    { format: `${title} [{bar}] {value}/{total} {label}`, hideCursor: true, stream: process.stderr, etaBuffer: 50 },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total, label = '') {
      const shown = label.length > 40 ? `…${label.slice(-39)}` : label;
      if (!started) {
        bar.start(total, done, { label: shown });
        started = true;
      } else {
        bar.setTotal(total);
        bar.update(done, { label: shown });
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
