import { type Server, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';

export interface CallbackReceiver {
  /** The receiver's base URL: the PSP posts its callbacks to `<url>/pix`. */
  url: string;
  /** Every callback body it accepted, as sent. */
  bodies: string[];
  /** How many callbacks it refused (while `answerWith` set a non-2xx status). */
  refused: () => number;
  /** The status it answers from now on (default 200): a non-2xx one refuses the callback, which is not kept. */
  answerWith: (status: number) => void;
  close: () => Promise<void>;
}

/** The receiving system a PSP calls back: a local HTTP endpoint answering 200 and keeping every body. */
export async function startCallbackReceiver(): Promise<CallbackReceiver> {
  const bodies: string[] = [];
  let status = 200;
  let refused = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (status >= 200 && status < 300) bodies.push(Buffer.concat(chunks).toString('utf8'));
      else refused += 1;
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    refused: () => refused,
    answerWith: (next) => {
      status = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
