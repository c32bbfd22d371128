import { createServer } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Command } from 'commander';
import type { EventType } from '@gateway/sdk';
import { wholeNumber, type Act, type Context } from '../context';
import { ensureListenTls } from '../listen-tls';
import { formatRecord } from '../output';
import { eventTypes } from './resources';

/** What the dispatcher waits for an answer (decisions.md: 2xx within 10 s): the app gets as long. */
const FORWARD_TIMEOUT_MS = 10_000;
/** Of the app's answer, what is shown. */
const ANSWER_EXCERPT = 120;
/** Connection-level headers belong to each hop; every other header of the delivery reaches the app as sent. */
const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-connection',
]);

interface Forwarded {
  event_id: string | null;
  type: string | null;
  forwarded_to: string;
  status: number | null;
  latency_ms: number;
  answer: string | null;
  error: string | null;
}

/** Resolves with the name of the first SIGINT or SIGTERM; a second one ends the process as usual. */
function untilInterrupted(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string) => () => resolve(signal);
    process.once('SIGINT', stop('SIGINT'));
    process.once('SIGTERM', stop('SIGTERM'));
  });
}

export function listenCommand(act: Act, defaultTlsDir: string): Command {
  return new Command('listen')
    .description(
      'forward webhook events to a local app: a temporary sandbox webhook, each signed delivery relayed with its headers',
    )
    .requiredOption('--forward-to <url>', "your app's webhook endpoint, e.g. http://localhost:4000/hook")
    .option('--events <names>', `comma-separated, of: ${eventTypes.join(', ')}`, eventTypes.join(','))
    .option('--port <port>', 'port of the local HTTPS receiver (default: any free one)', wholeNumber, 0)
    .option('--tls-dir <dir>', "where the receiver's local CA and certificate are kept", defaultTlsDir)
    .addHelpText(
      'after',
      `
How it works: webhook URLs must be https:// and the gateway verifies TLS, so listen runs an HTTPS receiver on
127.0.0.1 with a certificate from a local CA of its own (made once with openssl, kept in --tls-dir), and registers
https://localhost:PORT/ as a webhook of the business. The gateway's webhook dispatcher must trust that CA and be
allowed private targets (the sandbox default): run the stack with NODE_EXTRA_CA_CERTS=$(gateway listen-ca).
Each delivery is sent on to --forward-to with the body and headers it came with (x-service-signature, webhook-id,
webhook-timestamp, webhook-signature...), so your app verifies it with the secret printed at start; the app's answer
is shown and returned to the dispatcher, which retries non-2xx answers as it would in production. At start a
webhook.test delivery checks the gateway reaches the receiver (answered by listen, not forwarded). On Ctrl-C the
webhook is deleted.`,
    )
    .action(
      act(
        async (
          context: Context,
          flags: { forwardTo: string; events: string; port: number; tlsDir: string },
        ) => {
          const { output } = context;
          const gateway = context.gateway();
          // Listening from the start, so a Ctrl-C during the setup still ends with the webhook deleted.
          const stopped = untilInterrupted();
          const forwardTo = new URL(flags.forwardTo).toString();
          const tls = ensureListenTls(flags.tlsDir);
          let webhookId: string | undefined;
          let checkingReachability = false;

          const server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
            // A delivery whose connection broke mid-body is dropped: the dispatcher retries it.
            receive(req, res).catch(() => res.destroy());
          });
          const receive = async (req: IncomingMessage, res: ServerResponse) => {
            const body = await readBody(req);
            const event = describeEvent(body);
            if (checkingReachability && event.type === 'webhook.test' && event.webhookId === webhookId) {
              res.writeHead(204).end();
              return;
            }
            const forwarded = await forward(forwardTo, req.headers, body, event);
            report(context, forwarded);
            if (forwarded.status === null)
              res.writeHead(502, { 'content-type': 'text/plain' }).end(`listen: ${forwarded.error}`);
            else
              res.writeHead(forwarded.status, { 'content-type': 'text/plain' }).end(forwarded.answer ?? '');
          };

          await new Promise<void>((resolve, reject) => {
            server.once('error', reject);
            server.listen(flags.port, '127.0.0.1', resolve);
          });
          const url = `https://localhost:${(server.address() as AddressInfo).port}/`;
          try {
            const webhook = await output.step(
              'registering a temporary webhook',
              () => gateway.webhooks.create({ url, events: flags.events.split(',') as EventType[] }),
              (created) => created.webhook_id,
            );
            webhookId = webhook.webhook_id;
            checkingReachability = true;
            const check = await output.step('checking the gateway reaches this listener', () =>
              gateway.webhooks.test(webhook.webhook_id),
            );
            checkingReachability = false;
            if (check.status_code !== 204)
              throw new Error(
                `the gateway could not deliver to ${url} (${check.error ?? `HTTP ${check.status_code}`}). ` +
                  `Its webhook dispatcher must trust ${tls.caPath}: start the stack with NODE_EXTRA_CA_CERTS=${tls.caPath}`,
              );

            const ready = {
              ready: true,
              webhook_id: webhook.webhook_id,
              secret: webhook.secret,
              url,
              forward_to: forwardTo,
              events: webhook.events,
              ca_path: tls.caPath,
            };
            if (output.json) output.jsonLine(ready);
            else {
              output.line(
                `${output.style('green', 'Ready.')} Forwarding webhook events to ${output.style('bold', forwardTo)} (Ctrl-C to stop)`,
              );
              output.line(
                formatRecord({
                  webhook: `${webhook.webhook_id} (temporary: deleted on exit)`,
                  'signing secret': webhook.secret,
                  events: webhook.events.join(', '),
                }),
              );
            }
            const signal = await stopped;
            output.notice(`${signal}: stopping`);
          } finally {
            const id = webhookId;
            if (id !== undefined)
              await output.step(
                'deleting the temporary webhook',
                () => gateway.webhooks.delete(id),
                () => id,
              );
            server.closeAllConnections();
            await new Promise((resolve) => server.close(resolve));
          }
        },
      ),
    );
}

/** The path of the CA `listen` uses, made if missing: `NODE_EXTRA_CA_CERTS=$(gateway listen-ca) npm start`. */
export function listenCaCommand(act: Act, defaultTlsDir: string): Command {
  return new Command('listen-ca')
    .description("print the path of listen's local CA (made if missing), for the stack's NODE_EXTRA_CA_CERTS")
    .option('--tls-dir <dir>', "where the receiver's local CA and certificate are kept", defaultTlsDir)
    .action(
      act(async (context: Context, flags: { tlsDir: string }) => {
        const { caPath } = ensureListenTls(flags.tlsDir);
        context.output.result({ ca_path: caPath }, () => caPath);
      }),
    );
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface EventSummary {
  id: string | null;
  type: string | null;
  webhookId: string | null;
}

/** What a delivery is about, for the display; a body that is not an event is still forwarded as it came. */
function describeEvent(body: Buffer): EventSummary {
  try {
    const event = JSON.parse(body.toString('utf8')) as {
      id?: unknown;
      type?: unknown;
      data?: { webhook_id?: unknown };
    };
    const text = (value: unknown) => (typeof value === 'string' ? value : null);
    return { id: text(event.id), type: text(event.type), webhookId: text(event.data?.webhook_id) };
  } catch {
    return { id: null, type: null, webhookId: null };
  }
}

async function forward(
  forwardTo: string,
  incoming: IncomingHttpHeaders,
  body: Buffer,
  event: EventSummary,
): Promise<Forwarded> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    for (const each of [value].flat()) headers.append(name, each);
  }
  const started = performance.now();
  const base = { event_id: event.id, type: event.type, forwarded_to: forwardTo };
  try {
    const answer = await fetch(forwardTo, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    const text = await answer.text();
    return {
      ...base,
      status: answer.status,
      latency_ms: Math.round(performance.now() - started),
      answer: text,
      error: null,
    };
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return {
      ...base,
      status: null,
      latency_ms: Math.round(performance.now() - started),
      answer: null,
      error: `${err instanceof Error ? err.message : String(err)}${cause}`,
    };
  }
}

function report(context: Context, forwarded: Forwarded): void {
  const { output } = context;
  if (output.json) {
    output.jsonLine(forwarded);
    return;
  }
  const time = new Date().toISOString().slice(11, 19);
  const ok = forwarded.status !== null && forwarded.status >= 200 && forwarded.status < 300;
  const status = forwarded.status === null ? 'failed' : String(forwarded.status);
  const excerpt = (forwarded.answer ?? forwarded.error ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, ANSWER_EXCERPT);
  output.line(
    [
      output.style('dim', time),
      (forwarded.type ?? '(not an event)').padEnd(18),
      forwarded.event_id ?? '-',
      '→',
      output.style(ok ? 'green' : 'red', `[${status}]`),
      `${forwarded.latency_ms} ms`,
      excerpt ? output.style('dim', excerpt) : '',
    ]
      .join(' ')
      .trimEnd(),
  );
}
