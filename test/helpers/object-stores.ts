import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import path from 'node:path';
import { ROOT, tempDir, waitFor } from './bridge.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** An S3-compatible server (s3rver) on loopback; the real AWS SDK talks to it over HTTP. */
export async function startS3(buckets: string[]): Promise<{ env: Record<string, string>; stop(): Promise<void> }> {
  const { default: S3rver } = (await import('s3rver')) as unknown as { default: new (o: object) => { run(): Promise<{ port: number }>; close(): Promise<void> } };
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: tempDir('s3rver-'), configureBuckets: buckets.map((name) => ({ name })) });
  const { port } = await server.run();
  return {
    env: { AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' },
    stop: () => server.close(),
  };
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = connect(port, '127.0.0.1', () => {
      c.end();
      resolve(true);
    });
    c.on('error', () => resolve(false));
  });
}

const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

/** Azurite, Microsoft's official Azure Storage emulator (blob service only), on loopback. */
export async function startAzurite(): Promise<{ env: Record<string, string>; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(ROOT, 'node_modules/azurite/dist/src/blob/main.js'), '--blobHost', '127.0.0.1', '--blobPort', String(port), '--location', tempDir('azurite-'), '--silent', '--skipApiVersionCheck', '--loose'],
    { stdio: 'ignore' },
  );
  const endpoint = `http://127.0.0.1:${port}/devstoreaccount1`;
  await waitFor(() => portOpen(port), 20_000);
  return {
    env: { AZURE_STORAGE_CONNECTION_STRING: `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${AZURITE_KEY};BlobEndpoint=${endpoint};` },
    stop: async () => {
      child.kill();
    },
  };
}
