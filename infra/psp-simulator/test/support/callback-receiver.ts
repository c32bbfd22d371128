import { type Server, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';

export interface CallbackReceiver {
  /** The receiver's base URL: the PSP posts its callbacks to `<url>/pix`. */
  url: string;
  /** Every callback body, as sent. */
  bodies: string[];
  close: () => Promise<void>;
}

/** The receiving system a PSP calls back: a local HTTP endpoint answering 200 and keeping every body. */
export async function startCallbackReceiver(): Promise<CallbackReceiver> {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
