import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import { readTlsFile } from '../../config/tls-files.js';
import type { TlsConfig } from '../../config/tls-spec.js';
import { configError } from '../../core/errors.js';
import { boundSession, type SessionTimeouts } from './session-timeouts.js';

export type Handler = (req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse) => void;
export type Protocol = 'auto' | 'http1_only' | 'http2_only';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/** How long connections may stay silent, on every protocol. */
export interface ListenerTimeouts {
  /** Bodies are read as streams: no bound on a whole request. */
  streaming: boolean;
  /** A new connection must send a request's headers (HTTP/2: open a stream) within this. */
  headersTimeoutMs: number;
  /** A connection with no request in flight is closed after this (keep-alive). */
  keepAliveTimeoutMs: number;
  /** The server answered by itself (408 for a request too slow, 400/431 for one it cannot parse). */
  onServerAnswer(status: number): void;
}

/** A whole request (headers and body) must arrive within a minute, and never before its headers must. */
const requestTimeoutMs = (t: ListenerTimeouts): number => (t.streaming ? 0 : Math.max(60_000, t.headersTimeoutMs));

/**
 * HTTP/1.1 bounds (slow-loris): headers within headersTimeoutMs, a whole request within a minute
 * (streamed bodies excepted), idle keep-alive connections after keepAliveTimeoutMs, checked often
 * enough for short timeouts rather than Node's every 30 s.
 */
const h1Timeouts = (t: ListenerTimeouts) => ({
  headersTimeout: t.headersTimeoutMs,
  requestTimeout: requestTimeoutMs(t),
  keepAliveTimeout: t.keepAliveTimeoutMs,
  connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(t.headersTimeoutMs / 4))),
});

/** Node's own answers to requests it gives up on, written here so that they are counted. */
const SERVER_ANSWERS: Record<string, [number, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'],
};

function answerClientErrors(server: net.Server, t: ListenerTimeouts): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: net.Socket & { _httpMessage?: { headersSent: boolean } }) => {
    // As Node does without a listener: answer only if nothing of a response was written yet.
    if (socket.writable && !socket._httpMessage?.headersSent) {
      const [status, text] = SERVER_ANSWERS[err.code ?? ''] ?? [400, 'Bad Request'];
      // A body naming what the parser found, as every other refusal has (it was a bare 400 with no body).
      const reason = (err as { reason?: string }).reason ?? err.message;
      const body = JSON.stringify({ error: status === 408 ? 'the request did not arrive in time' : `the request cannot be read: ${reason}`, message_id: null });
      socket.write(`HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      t.onServerAnswer(status);
    }
    socket.destroy(err);
  });
}

export interface Listener {
  server: net.Server;
  /** Stops taking connections and closes idle ones; requests in flight are answered, their connections then close. */
  stop(): void;
  /** Closes everything at once. */
  close(): Promise<void>;
}

/**
 * The server for `server_protocol` and `tls`: HTTPS offers h2 and http/1.1 by ALPN; cleartext
 * `auto` looks at the first bytes of each connection and hands it to the HTTP/2 (h2c prior
 * knowledge) or the HTTP/1.1 server. `tls.ca_file` turns on client-certificate verification.
 */
export function createListener(handler: Handler, protocol: Protocol, tls: TlsConfig | undefined, t: ListenerTimeouts): Listener {
  const secure = tls !== undefined && (tls.cert_file !== undefined || tls.key_file !== undefined || tls.required === true);
  const sockets = new Set<net.Socket>();
  const track = (s: net.Server): void => {
    s.on('connection', (sock: net.Socket) => {
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
    });
  };
  const h1 = (s: net.Server): net.Server => {
    answerClientErrors(s, t);
    // Handled by the handler: 100 Continue only for a request it will read.
    s.on('checkContinue', handler);
    return s;
  };
  let server: net.Server;
  const h2Servers: net.Server[] = [];
  let extra: net.Server[] = [];
  if (secure) {
    if (!tls.cert_file || !tls.key_file) throw configError('an HTTPS listener needs tls.cert_file and tls.key_file');
    const ca = readTlsFile(tls.ca_file, 'ca_file');
    const opts = {
      cert: readTlsFile(tls.cert_file, 'cert_file')!,
      key: readTlsFile(tls.key_file, 'key_file')!,
      ...(tls.cert_password ? { passphrase: tls.cert_password } : {}),
      ...(ca ? { ca, requestCert: true, rejectUnauthorized: true } : {}),
    };
    if (protocol === 'http1_only') server = h1(https.createServer({ ...opts, ...h1Timeouts(t) }, handler as http.RequestListener));
    else {
      server = http2.createSecureServer({ ...opts, allowHTTP1: protocol === 'auto' }, handler as never);
      // Its HTTP/1.1 connections are served by Node's HTTP/1.1 code, which reads these from the server.
      if (protocol === 'auto') h1(Object.assign(server, h1Timeouts(t)));
      h2Servers.push(server);
    }
    track(server);
  } else if (protocol === 'http1_only') {
    server = h1(http.createServer(h1Timeouts(t), handler as http.RequestListener));
    track(server);
  } else if (protocol === 'http2_only') {
    server = http2.createServer(handler as never);
    h2Servers.push(server);
    track(server);
  } else {
    const h1Server = h1(http.createServer(h1Timeouts(t), handler as http.RequestListener));
    const h2 = http2.createServer(handler as never);
    extra = [h1Server, h2];
    h2Servers.push(h2);
    // These servers get their connections from the sniffer and never listen themselves; Node starts
    // the timer that enforces headersTimeout/requestTimeout on 'listening'.
    server = net.createServer((sock) => {
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
      // A connection that sends nothing is never handed over: it is bounded here.
      sock.setTimeout(t.headersTimeoutMs, () => sock.destroy());
      sock.once('readable', () => {
        sock.setTimeout(0);
        const head = sock.read(Math.min(PREFACE.length, sock.readableLength)) as Buffer | null;
        if (head) sock.unshift(head);
        const target = head && head.length >= 3 && PREFACE.subarray(0, head.length).equals(head) ? h2 : h1Server;
        target.emit('connection', sock);
      });
    });
    server.once('listening', () => {
      h1Server.emit('listening');
      h2.emit('listening');
    });
  }
  const sessions = new Set<http2.ServerHttp2Session>();
  const bounds: SessionTimeouts = { firstStreamMs: t.headersTimeoutMs, idleMs: t.keepAliveTimeoutMs, requestMs: requestTimeoutMs(t), onTimeout: t.onServerAnswer };
  for (const srv of h2Servers)
    srv.on('session', (session: http2.ServerHttp2Session) => {
      sessions.add(session);
      session.on('close', () => sessions.delete(session));
      boundSession(session, bounds);
    });
  for (const srv of h2Servers) if (srv.listenerCount('checkContinue') === 0) srv.on('checkContinue', handler);
  return {
    server,
    stop: () => {
      server.close();
      for (const s of extra) s.close();
      // HTTP/1.1: idle keep-alive connections close now, busy ones after their response (Connection: close).
      for (const s of [server, ...extra]) (s as Partial<http.Server>).closeIdleConnections?.();
      // HTTP/2: GOAWAY lets the streams in flight finish.
      for (const session of sessions) session.close();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of extra) s.close();
        // Idle keep-alive connections would hold the server open.
        for (const sock of sockets) sock.destroy();
      }),
  };
}
