import { render, type Instance } from 'ink';
import { redact } from '../../config/redact.js';
import type { StatsHub, StatsSnapshot } from '../../stats/hub.js';
import { PlainReporter, type Reporter, type Summary } from '../reporter.js';
import { LiveView } from './view.js';

/**
 * The terminal view: Ink renders the hub a few times a second on stderr; the summary and errors
 * are the plain reporter's lines, printed after the view is gone.
 */
export class InkReporter implements Reporter {
  private app: Instance | undefined;
  private hub: StatsHub | undefined;
  private readonly plain: PlainReporter;

  constructor(private readonly quiet: boolean) {
    this.plain = new PlainReporter({ quiet, progress: false, intervalMs: 5000 });
  }

  start(hub: StatsHub): void {
    this.hub = hub;
    if (this.quiet) return this.plain.start(hub);
    // The view writes through redact as well: it shows endpoints, errors and warnings.
    const stderr = process.stderr;
    const write = stderr.write.bind(stderr);
    const out = Object.create(stderr, {
      write: { value: (chunk: string | Uint8Array, ...rest: unknown[]) => write(typeof chunk === 'string' ? redact(chunk) : chunk, ...(rest as [])) },
    }) as NodeJS.WriteStream;
    this.app = render(<LiveView hub={hub} />, { stdout: out, stderr: out, exitOnCtrlC: false, patchConsole: false });
  }

  // While the view is up, lines go through the hub so they scroll above it instead of tearing it.
  warn(text: string): void {
    if (this.app) this.hub!.warn(text);
    else this.plain.warn(text);
  }

  info(text: string): void {
    if (this.app) this.hub!.info(text);
    else this.plain.info(text);
  }

  finish(s: StatsSnapshot, summary: Summary): void {
    if (this.app && this.hub) this.app.rerender(<LiveView hub={this.hub} final={s} />);
    this.app?.unmount();
    this.app = undefined;
    this.plain.finish(s, summary);
  }
}
