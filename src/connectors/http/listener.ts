import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import { readTlsFile } from '../../config/tls-files.js';
import type { TlsConfig } from '../../config/tls-spec.js';
import { configError } from '../../core/errors.js';

export type Handler = (req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse) => void;
export type Protocol = 'auto' | 'http1_only' | 'http2_only';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');


/**
 * Slow clients must not hold connections forever (slow-loris): headers within 10 s, a whole request
 * within a minute (streamed bodies excepted), checked every second rather than Node's 30 s.
 */
const h1Timeouts = (streaming: boolean): http.ServerOptions => ({ headersTimeout: 10_000, requestTimeout: streaming ? 0 : 60_000, connectionsCheckingInterval: 1000 });

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
export function createListener(handler: Handler, protocol: Protocol, tls: TlsConfig | undefined, streaming = false): Listener {
  const secure = tls !== undefined && (tls.cert_file !== undefined || tls.key_file !== undefined || tls.required === true);
  const sockets = new Set<net.Socket>();
  const track = (s: net.Server): void => {
    s.on('connection', (sock: net.Socket) => {
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
    });
  };
  let server: net.Server;
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
    if (protocol === 'http1_only') server = https.createServer({ ...opts, ...h1Timeouts(streaming) }, handler as http.RequestListener);
    else server = http2.createSecureServer({ ...opts, allowHTTP1: protocol === 'auto' }, handler as never);
    track(server);
  } else if (protocol === 'http1_only') {
    server = http.createServer(h1Timeouts(streaming), handler as http.RequestListener);
    track(server);
  } else if (protocol === 'http2_only') {
    server = http2.createServer(handler as never);
    track(server);
  } else {
    const h1 = http.createServer(h1Timeouts(streaming), handler as http.RequestListener);
    const h2 = http2.createServer(handler as never);
    extra = [h1, h2];
    // These servers get their connections from the sniffer and never listen themselves; Node starts
    // the timer that enforces headersTimeout/requestTimeout on 'listening'.
    server = net.createServer((sock) => {
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
      sock.once('readable', () => {
        const head = sock.read(Math.min(PREFACE.length, sock.readableLength)) as Buffer | null;
        if (head) sock.unshift(head);
        const target = head && head.length >= 3 && PREFACE.subarray(0, head.length).equals(head) ? h2 : h1;
        target.emit('connection', sock);
      });
    });
    server.once('listening', () => {
      h1.emit('listening');
      h2.emit('listening');
    });
  }
  // Idle HTTP/2 sessions are closed after a minute.
  const sessions = new Set<http2.ServerHttp2Session>();
  for (const srv of [server, ...extra])
    if (!('headersTimeout' in srv))
      srv.on('session', (session: http2.ServerHttp2Session) => {
        sessions.add(session);
        session.on('close', () => sessions.delete(session));
        session.setTimeout(60_000, () => session.close());
      });
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
