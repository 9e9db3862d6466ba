import { EventEmitter } from 'node:events';
import { parentPort, workerData } from 'node:worker_threads';
import { render } from 'ink';
import type { StatsSnapshot } from '../../stats/hub.js';
import type { StatsHub } from '../../stats/hub.js';
import { BoardView, type BoardRow } from './board.js';
import { LiveView } from './view.js';

/**
 * The live view on its own thread: loading Ink, React and Yoga (~0.3 s of CPU) and laying out
 * frames then cost the pipeline's thread nothing. The main thread posts snapshots and lines; the
 * frames come back as text for it to write to stderr.
 */
type In =
  | { type: 'snapshot'; snap: StatsSnapshot }
  | { type: 'line'; kind: 'warning' | 'info'; text: string }
  | { type: 'final'; snap: StatsSnapshot }
  | { type: 'board'; title: string; rows: BoardRow[] }
  | { type: 'board-final'; title: string; rows: BoardRow[] }
  | { type: 'board-line'; text: string };

const { columns, rows } = workerData as { columns: number; rows: number };
let latest: StatsSnapshot | undefined;

/** Enough of a StatsHub for the view: the latest snapshot, and line events. */
class RemoteHub extends EventEmitter {
  snapshot(): StatsSnapshot {
    return latest!;
  }
}
const hub = new RemoteHub();

class Out extends EventEmitter {
  isTTY = true;
  columns = columns;
  rows = rows;
  write(chunk: string): boolean {
    parentPort!.postMessage({ type: 'out', data: chunk });
    return true;
  }
}
const out = new Out();

let app: ReturnType<typeof render> | undefined;
/** Several routes: the board's lines so far (warnings, errors, each route's summary). */
const boardLines: string[] = [];
const options = { stdout: out as never, stderr: out as never, exitOnCtrlC: false, patchConsole: false };
parentPort!.on('message', (m: In) => {
  if (m.type === 'board-line') boardLines.push(m.text);
  else if (m.type === 'board' || m.type === 'board-final') {
    const view = <BoardView rows={m.rows} lines={[...boardLines]} title={m.title} />;
    if (app) app.rerender(view);
    else app = render(view, options);
    if (m.type === 'board-final') {
      app.unmount();
      setImmediate(() => parentPort!.postMessage({ type: 'done' }));
    }
  } else if (m.type === 'snapshot') {
    latest = m.snap;
    app ??= render(<LiveView hub={hub as unknown as StatsHub} />, options);
  } else if (m.type === 'line') hub.emit(m.kind, m.text);
  else if (m.type === 'final') {
    latest = m.snap;
    app?.rerender(<LiveView hub={hub as unknown as StatsHub} final={m.snap} />);
    app?.unmount();
    // Let the last frame's write reach the main thread before saying so.
    setImmediate(() => parentPort!.postMessage({ type: 'done' }));
  }
});
parentPort!.postMessage({ type: 'ready' });
