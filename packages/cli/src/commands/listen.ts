import { createServer } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { isIP } from 'node:net';
import { Command, InvalidArgumentError } from 'commander';
import { GatewayError, type EventType } from '@gateway/sdk';
import { refuseUnlessSandboxKey, wholeNumber, type Act, type Context } from '../context';
import { ensureListenTls, isCertifiableHost, VALID_DAYS } from '../listen-tls';
import { formatRecord } from '../output';
import { eventTypes } from './resources';

/** What the dispatcher waits for an answer (docs/adr/0009-webhook-delivery-and-signatures.md: 2xx within 10 s): the app gets as long. */
const FORWARD_TIMEOUT_MS = 10_000;
/** Of the app's answer, what is shown. */
const ANSWER_EXCERPT = 120;
/** The largest delivery relayed: an event is a few kilobytes; anything bigger is not the gateway's and is refused. */
export const MAX_DELIVERY_BYTES = 1024 * 1024;
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
  /** Null when listen runs without --forward-to: it answered the delivery itself. */
  forwarded_to: string | null;
  status: number | null;
  latency_ms: number;
  answer: string | null;
  error: string | null;
}

/** A delivery over MAX_DELIVERY_BYTES: read no further. */
export class DeliveryTooLargeError extends Error {}

/**
 * Resolves `signal` with the name of the first SIGINT or SIGTERM; a second one ends the process as usual. `stop`
 * removes the handlers.
 */
function untilInterrupted(): { signal: Promise<string>; stop(): void } {
  const handlers: Array<[NodeJS.Signals, () => void]> = [];
  const signal = new Promise<string>((resolve) => {
    for (const name of ['SIGINT', 'SIGTERM'] as const) {
      const handler = () => resolve(name);
      handlers.push([name, handler]);
      process.once(name, handler);
    }
  });
  return {
    signal,
    stop: () => {
      for (const [name, handler] of handlers) process.removeListener(name, handler);
    },
  };
}

/** The host the webhook URL names and the certificate is for: a DNS name or an IP address. */
function hostName(text: string): string {
  if (!isCertifiableHost(text)) throw new InvalidArgumentError('a host name or IP address is expected.');
  return text.toLowerCase();
}

function bindAddress(text: string): string {
  if (isIP(text) === 0) throw new InvalidArgumentError('an IP address is expected (127.0.0.1, 0.0.0.0, ::).');
  return text;
}

export function listenCommand(act: Act, defaultTlsDir: string): Command {
  return new Command('listen')
    .description(
      'forward webhook events to a local app: a temporary sandbox webhook, each signed delivery relayed with its headers',
    )
    .option(
      '--forward-to <url>',
      "your app's webhook endpoint, e.g. http://localhost:4000/hook (without it, listen answers each delivery 204 and shows it)",
    )
    .option('--events <names>', `comma-separated, of: ${eventTypes.join(', ')}`, eventTypes.join(','))
    .option('--port <port>', 'port of the local HTTPS receiver (default: any free one)', wholeNumber, 0)
    .option('--tls-dir <dir>', "where the receiver's local CA and certificate are kept", defaultTlsDir)
    .option(
      '--host <name>',
      'the host name the gateway reaches this machine by: in the webhook URL and the certificate',
      hostName,
      'localhost',
    )
    .option('--bind <address>', 'the address the receiver listens on', bindAddress, '127.0.0.1')
    .addHelpText(
      'after',
      `
Sandbox only: it refuses any key but a sandbox one (sk_test_...) before calling the gateway, since with a
production key it would register a production webhook pointing at this machine.

How it works: webhook URLs must be https:// and the gateway verifies TLS, so listen runs an HTTPS receiver on
--bind (127.0.0.1) with a certificate from a local CA of its own (made with openssl, kept in --tls-dir), and
registers https://localhost:PORT/ (--host) as a webhook of the business. The gateway's webhook dispatcher must trust
that CA and be allowed private targets (the sandbox default): \`npm start\` in the sandbox trusts it by itself (it
makes it if missing); a stack started otherwise needs NODE_EXTRA_CA_CERTS=$(gateway listen-ca). The CA can only vouch
for localhost, 127.0.0.1, ::1 and --host (its name constraints), lasts ${VALID_DAYS} days and keeps no key: when it
is renewed, restart the stack.
Each delivery is sent on to --forward-to with the body and headers it came with (x-service-signature, webhook-id,
webhook-timestamp, webhook-signature...), so your app verifies it with the secret printed at start; the app's answer
is shown and returned to the dispatcher, which retries non-2xx answers as it would in production. At start a
webhook.test delivery checks the gateway reaches the receiver (answered by listen, not forwarded). On Ctrl-C the
webhook is deleted (a listen that is killed leaves it: delete it with \`gateway webhooks delete\`).

Same machine only by default: the stack must reach https://localhost:PORT/, i.e. run on this host, not in
containers or on another machine. A stack in Docker reaches the host as host.docker.internal:
  gateway listen-ca --host host.docker.internal
  gateway listen --host host.docker.internal --bind 0.0.0.0 --forward-to ...
(--bind 0.0.0.0 exposes the receiver to your network; what it relays is still signed.)`,
    )
    .action(
      act(
        async (
          context: Context,
          flags: {
            forwardTo?: string;
            events: string;
            port: number;
            tlsDir: string;
            host: string;
            bind: string;
          },
        ) => {
          const { output } = context;
          refuseUnlessSandboxKey(
            context.apiKey(),
            'listen',
            'register a production webhook pointing at this machine',
          );
          const gateway = context.gateway();
          const forwardTo = flags.forwardTo === undefined ? null : new URL(flags.forwardTo).toString();
          const tls = ensureListenTls(flags.tlsDir, [flags.host]);
          if (tls.created || tls.renewed)
            output.notice(
              `${tls.created ? "made listen's local CA" : 'made a new local CA in place of the previous one'} ` +
                `(${tls.caPath}, valid ${VALID_DAYS} days): a stack started before does not trust it; ` +
                `${RESTART_HINT(tls.caPath)}`,
            );
          // Listening from here on, so a Ctrl-C during the setup still ends with the webhook deleted.
          const interrupted = untilInterrupted();
          let webhookId: string | undefined;
          let checkingReachability = false;

          const server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
            // A delivery whose connection broke mid-body is dropped: the dispatcher retries it.
            receive(req, res).catch(() => res.destroy());
          });
          const receive = async (req: IncomingMessage, res: ServerResponse) => {
            if (Number(req.headers['content-length'] ?? 0) > MAX_DELIVERY_BYTES) {
              refuseTooLarge(context, req, res);
              return;
            }
            let body: Buffer;
            try {
              body = await readBody(req);
            } catch (err) {
              if (err instanceof DeliveryTooLargeError) refuseTooLarge(context, req, res);
              else res.destroy();
              return;
            }
            const event = describeEvent(body);
            if (checkingReachability && event.type === 'webhook.test' && event.webhookId === webhookId) {
              res.writeHead(204).end();
              return;
            }
            const forwarded =
              forwardTo === null ? answeredHere(event) : await forward(forwardTo, req.headers, body, event);
            report(context, forwarded);
            if (forwarded.status === null)
              res.writeHead(502, { 'content-type': 'text/plain' }).end(`listen: ${forwarded.error}`);
            else
              res.writeHead(forwarded.status, { 'content-type': 'text/plain' }).end(forwarded.answer ?? '');
          };

          await new Promise<void>((resolve, reject) => {
            server.once('error', reject);
            server.listen(flags.port, flags.bind, resolve);
          });
          const urlHost = isIP(flags.host) === 6 ? `[${flags.host}]` : flags.host;
          const url = `https://${urlHost}:${(server.address() as AddressInfo).port}/`;
          // What ended listen, if not a signal: reported over any failure of the cleanup.
          let failure: { error: unknown } | undefined;
          try {
            const webhook = await output.step(
              'registering a temporary webhook',
              () => gateway.webhooks.create({ url, events: flags.events.split(',') as EventType[] }),
              (created) => created.webhook_id,
            );
            webhookId = webhook.webhook_id;
            checkingReachability = true;
            await output.step('checking the gateway reaches this listener', async () => {
              const check = await gateway.webhooks.test(webhook.webhook_id);
              if (check.status_code !== 204)
                throw new Error(
                  `the gateway could not deliver to ${url} (${check.error ?? `HTTP ${check.status_code}`}). ` +
                    `Its webhook dispatcher must trust ${tls.caPath} and run on this machine unless --host ` +
                    `names how it reaches this one: ${RESTART_HINT(tls.caPath)}`,
                );
            });
            checkingReachability = false;

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
              const what =
                forwardTo === null
                  ? 'Showing webhook events, each answered 204 here (--forward-to sends them to your app)'
                  : `Forwarding webhook events to ${output.style('bold', forwardTo)}`;
              output.line(`${output.style('green', 'Ready.')} ${what} (Ctrl-C to stop)`);
              output.line(
                formatRecord({
                  webhook: `${webhook.webhook_id} (temporary: deleted on exit)`,
                  'signing secret': webhook.secret,
                  events: webhook.events.join(', '),
                }),
              );
            }
            const signal = await interrupted.signal;
            output.notice(`${signal}: stopping`);
          } catch (error) {
            failure = { error };
          }
          interrupted.stop();
          server.closeAllConnections();
          await new Promise((resolve) => server.close(resolve));
          const id = webhookId;
          if (id !== undefined) {
            try {
              await output.step(
                'deleting the temporary webhook',
                () => gateway.webhooks.delete(id),
                () => id,
              );
            } catch (deleteError) {
              if (failure === undefined) throw deleteError;
              output.error(
                `the temporary webhook ${id} was not deleted (${describe(deleteError)}): ` +
                  `gateway webhooks delete ${id}`,
              );
            }
          }
          if (failure !== undefined) throw failure.error;
        },
      ),
    );
}

/** How a stack comes to trust the CA at `caPath`. */
const RESTART_HINT = (caPath: string) =>
  `restart \`npm start\`, which trusts it by itself in the sandbox (a stack started otherwise: NODE_EXTRA_CA_CERTS=${caPath})`;

/** The path of the CA `listen` uses, made if missing: `NODE_EXTRA_CA_CERTS=$(gateway listen-ca) npm start`. */
export function listenCaCommand(act: Act, defaultTlsDir: string): Command {
  return new Command('listen-ca')
    .description("print the path of listen's local CA (made if missing), for the stack's NODE_EXTRA_CA_CERTS")
    .option('--tls-dir <dir>', "where the receiver's local CA and certificate are kept", defaultTlsDir)
    .option('--host <name>', 'a host name to certify besides localhost (as given to listen --host)', hostName)
    .addHelpText(
      'after',
      `
The CA is renewed (a new one made) when it nears the end of its ${VALID_DAYS} days or does not cover --host; a stack
started with the old one must then be restarted.`,
    )
    .action(
      act(async (context: Context, flags: { tlsDir: string; host?: string }) => {
        const { caPath } = ensureListenTls(flags.tlsDir, flags.host === undefined ? [] : [flags.host]);
        context.output.result({ ca_path: caPath }, () => caPath);
      }),
    );
}

/** The body, up to `limit` bytes: past it, DeliveryTooLargeError and nothing more is read. */
export async function readBody(
  req: AsyncIterable<Buffer | string>,
  limit = MAX_DELIVERY_BYTES,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > limit) throw new DeliveryTooLargeError(`a delivery larger than ${limit} bytes`);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, size);
}

/** 413 without reading the body, and the connection closed. */
function refuseTooLarge(context: Context, req: IncomingMessage, res: ServerResponse): void {
  res
    .writeHead(413, { 'content-type': 'text/plain', connection: 'close' })
    .end(`listen: deliveries are at most ${MAX_DELIVERY_BYTES} bytes`, () => req.destroy());
  const refused = `not forwarded: larger than ${MAX_DELIVERY_BYTES} bytes`;
  report(context, {
    event_id: null,
    type: null,
    forwarded_to: '-',
    status: null,
    latency_ms: 0,
    answer: null,
    error: refused,
  });
}

function describe(err: unknown): string {
  if (err instanceof GatewayError) return `${err.code} (HTTP ${err.status})`;
  return err instanceof Error ? err.message : String(err);
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

/** A delivery listen answered itself (no --forward-to). */
function answeredHere(event: EventSummary): Forwarded {
  return {
    event_id: event.id,
    type: event.type,
    forwarded_to: null,
    status: 204,
    latency_ms: 0,
    answer: null,
    error: null,
  };
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
      forwarded.forwarded_to === null ? 'answered by listen' : `${forwarded.latency_ms} ms`,
      excerpt ? output.style('dim', excerpt) : '',
    ]
      .join(' ')
      .trimEnd(),
  );
}
