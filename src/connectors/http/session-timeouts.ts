import http2 from 'node:http2';

const { NGHTTP2_CANCEL } = http2.constants;

/** How long an HTTP/2 connection or stream may stay silent (see `ListenerTimeouts`). */
export interface SessionTimeouts {
  /** A session that has not opened its first stream is closed after this. */
  firstStreamMs: number;
  /** A session with no stream open is closed after this (keep-alive). */
  idleMs: number;
  /** A stream whose request body has not ended after this is answered 408 (0: never, streamed bodies). */
  requestMs: number;
  /** A 408 was sent. */
  onTimeout(status: number): void;
}

/** After GOAWAY, how long a session's peer has to close before the socket is destroyed. */
const GOAWAY_GRACE_MS = 1000;

/**
 * Bounds the life of an HTTP/2 session that does nothing: Node closes none on its own, so a client
 * that sends a partial preface, or a preface and SETTINGS and then nothing, or stops sending
 * requests, would hold its socket forever. Counted by open streams, not by frames: PINGs do not
 * keep an idle session open.
 */
export function boundSession(session: http2.ServerHttp2Session, t: SessionTimeouts): void {
  let timer: NodeJS.Timeout | undefined;
  let open = 0;
  const arm = (ms: number): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      session.close();
      setTimeout(() => session.destroy(), GOAWAY_GRACE_MS).unref();
    }, ms);
    timer.unref();
  };
  arm(t.firstStreamMs);
  session.on('stream', (stream: http2.ServerHttp2Stream) => {
    open++;
    clearTimeout(timer);
    if (t.requestMs > 0) boundRequest(stream, t);
    stream.once('close', () => {
      if (--open === 0 && !session.closed && !session.destroyed) arm(t.idleMs);
    });
  });
  session.once('close', () => clearTimeout(timer));
}

/** HTTP/1.1's requestTimeout for one stream: its body must end in time, else 408 and the stream is reset. */
function boundRequest(stream: http2.ServerHttp2Stream, t: SessionTimeouts): void {
  if (stream.readableEnded) return;
  const timer = setTimeout(() => {
    if (stream.destroyed) return;
    if (!stream.headersSent) {
      stream.respond({ ':status': 408, 'content-type': 'application/json' });
      stream.end(JSON.stringify({ error: 'the request body did not arrive in time', message_id: null }));
      t.onTimeout(408);
    }
    // CANCEL, not NO_ERROR: the handler must see a body that did not end, and not deliver it.
    stream.close(NGHTTP2_CANCEL);
  }, t.requestMs);
  timer.unref();
  stream.once('end', () => clearTimeout(timer));
  stream.once('close', () => clearTimeout(timer));
}
