import net from 'node:net';

export interface RawSocket {
  sock: net.Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves with ms from connect to the server closing the connection (end or reset), or undefined after `waitMs`. */
  closedWithin(waitMs: number): Promise<number | undefined>;
}

/** A TCP client on loopback that records what the server sends and when it closes the connection. */
export async function rawSocket(port: number, first?: Buffer | string): Promise<RawSocket> {
  const sock = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => sock.once('connect', () => resolve()).once('error', reject));
  const opened = performance.now();
  let data = '';
  let closedAt: number | undefined;
  const closed = new Promise<void>((resolve) => {
    const done = (): void => {
      closedAt ??= performance.now() - opened;
      resolve();
    };
    sock.on('end', done);
    sock.on('close', done);
    sock.on('error', done);
  });
  sock.on('data', (d: Buffer) => (data += d.toString('latin1')));
  if (first !== undefined) sock.write(first);
  return {
    sock,
    received: () => data,
    closedWithin: async (waitMs) => {
      await Promise.race([closed, new Promise((r) => setTimeout(r, waitMs))]);
      return closedAt;
    },
  };
}
