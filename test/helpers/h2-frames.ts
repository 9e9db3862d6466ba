import net from 'node:net';

/**
 * Raw HTTP/2 frames for tests that need exact control of what reaches the server (Node's own
 * client ends a stream with END_STREAM before it resets it, so it cannot send a body that never ended).
 */
export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

export const FRAME = { DATA: 0, HEADERS: 1, RST_STREAM: 3, SETTINGS: 4, GOAWAY: 7 } as const;
export const FLAG = { END_STREAM: 1, END_HEADERS: 4 } as const;

export function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId, 5);
  return Buffer.concat([head, payload]);
}

/** A HEADERS block (HPACK, static-table names, no Huffman) for POST / with the given authority and content type. */
export function postHeaders(streamId: number, authority: string, contentType = 'application/json'): Buffer {
  const literal = (prefix: number[], value: string): Buffer => Buffer.concat([Buffer.from([...prefix, value.length]), Buffer.from(value)]);
  // :method POST (3), :scheme http (6), :path / (4) are indexed; :authority (1) and content-type (31) literal.
  const block = Buffer.concat([Buffer.from([0x83, 0x86, 0x84]), literal([0x01], authority), literal([0x0f, 0x10], contentType)]);
  return frame(FRAME.HEADERS, FLAG.END_HEADERS, streamId, block);
}

export function rstStream(streamId: number, code: number): Buffer {
  const p = Buffer.alloc(4);
  p.writeUInt32BE(code);
  return frame(FRAME.RST_STREAM, 0, streamId, p);
}

/** Connects to `port` on loopback and resolves with the socket once connected. */
export function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1', () => resolve(sock));
    sock.once('error', reject);
  });
}
