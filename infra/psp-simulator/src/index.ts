import { type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type Express } from 'express';
import { PSP_PROFILES, type PspProfileName } from '@gateway/contracts';
import { SANDBOX_PSP_CLIENT } from '@gateway/config';
import { Agent } from 'undici';
import { type Logger, createLogger } from '@gateway/observability';
import { openServiceDatabase } from '@gateway/persistence';
import { TokenIssuer } from './auth';
import { CallbackSender, DEFAULT_CALLBACK_DELAYS_MS } from './callback-sender';
import { CobStore, pspDatabase } from './cob-store';
import { SimulatorClock } from './clock';
import { CobvStore } from './cobv-store';
import { type SimulatorContext } from './context';
import { DEFAULT_ENVIO_CALLBACK_DELAYS_MS, EnvioNotifier } from './envio-notifier';
import { EnvioRules } from './envio-rules';
import { EnvioStore } from './envio-store';
import { FaultInjector } from './faults';
import { InfracaoStore } from './infracao-store';
import { PayloadSigner } from './payload-signer';
import { RecStore } from './rec-store';
import { CobrStore } from './cobr-store';
import { type ProfileValues, requireProfileExtras } from './psp-profile';
import { sendProblem } from './problem';
import { cobRouter } from './routes/cob';
import { clockRouter, cobvPayloadRouter, cobvRouter, cobvSandboxRouter } from './routes/cobv';
import { infracaoRouter } from './routes/infracao';
import { envioCallback, envioRouter, envioSandboxRouter, settleEnvioWhenDue } from './routes/envio';
import { locationRouter, payloadRouter } from './routes/location';
import { pixRouter, settleWhenDue } from './routes/pix';
import { expireRecs, locRecRouter, recPayloadRouter, recRouter, recSandboxRouter } from './routes/rec';
import { cobrRouter, cobrSandboxRouter, runCobrs } from './routes/cobr';
import { SettlementTimers } from './settlement-timers';
import { sandboxRouter } from './routes/sandbox';
import { webhookRouter } from './routes/webhook';
import { SANDBOX_PIX_KEY } from './config';

export { type Fault, type FaultInjector, type FaultRule } from './faults';
export {
  DEFAULT_ENVIO_FAILURE,
  type EnvioFailure,
  type EnvioFailureRule,
  type EnvioRules,
} from './envio-rules';
export { FAILING_DEVOLUCAO_DESCRICAO } from './routes/pix';

export interface PspSimulatorOptions {
  /** postgres://... where the simulator keeps its books (schema `psp_simulator`, migrated at start). */
  databaseUrl: string;
  clientId: string;
  clientSecret: string;
  /** The Pix key of the simulated receiving account. */
  pixKey: string;
  /** Where API Pix is mounted, e.g. `/v2` (default) or `/pix/v2`. */
  pathPrefix?: string;
  merchantName?: string;
  merchantCity?: string;
  /** ISPB of the simulated payer's bank, first part of every endToEndId. */
  payerIspb?: string;
  tokenTtlSeconds?: number;
  /** Token answers without `expires_in`, as some PSPs send them. */
  omitTokenExpiresIn?: boolean;
  /** How long a devolução is EM_PROCESSAMENTO before it settles (default 200 ms). */
  devolucaoSettleMs?: number;
  /** How long a sent Pix (Efí envio) is EM_PROCESSAMENTO before it settles (default 200 ms). */
  envioSettleMs?: number;
  /** Waits between callback attempts; their count bounds the retries. */
  callbackRetryDelaysMs?: number[];
  /**
   * Waits between the attempts of a sent Pix's callback, which is kept in the books until accepted (and resent after a
   * restart); default ten doubling from 1 s (`DEFAULT_ENVIO_CALLBACK_DELAYS_MS`).
   */
  envioCallbackDelaysMs?: number[];
  /** The bank it behaves like, refusing what that bank refuses (docs/psp-profiles.md); default `bcb`. */
  profile?: PspProfileName;
  /** What that bank expects in its extra query parameters and headers (BB's developer key, Inter's account). */
  profileValues?: ProfileValues;
  /**
   * TLS of its callbacks (PEM strings): `ca` the receivers' server certificates are checked against, and `cert`/`key`
   * the client certificate it presents, as Efí calls back over mutual TLS with a certificate of its own CA.
   */
  callbackTls?: { ca?: string; cert?: string; key?: string };
  logger?: Logger;
}

export interface RunningPspSimulator {
  url: string;
  /** Rate limits, errors, slow and lost answers to serve next (tests). */
  faults: FaultInjector;
  /** Sandbox rules that make chosen envios end NAO_REALIZADO (tests). */
  envioRules: EnvioRules;
  /** How many callbacks are done with (delivered, abandoned or stopped): nothing more is sent for those. */
  callbackRunsEnded: () => number;
  /** How many of the account's settled envios still owe their callback (not accepted yet). */
  envioCallbacksPending: () => Promise<number>;
  close: () => Promise<void>;
}

export interface PspSimulator {
  app: Express;
  faults: FaultInjector;
  envioRules: EnvioRules;
  callbackRunsEnded: () => number;
  start: (port: number, host?: string) => Promise<RunningPspSimulator>;
}

// The simulated account holder's CNPJ (check digits valid), shown with its webhook.
const SANDBOX_CNPJ = '11222333000181';

/** A stand-in receiving PSP speaking the BCB "API Pix" v2 subset the gateway uses, plus sandbox payment triggers. */
export function createPspSimulator(options: PspSimulatorOptions): PspSimulator {
  const logger = options.logger ?? createLogger('psp-simulator');
  const pathPrefix = options.pathPrefix ?? '/v2';
  const envios = new EnvioStore(options.payerIspb ?? '99999999');
  const store = new CobStore(options.payerIspb ?? '99999999');
  const clock = new SimulatorClock();
  const profile = PSP_PROFILES[options.profile ?? 'bcb'];
  const callbackTls = options.callbackTls ?? {};
  const trustReceivers = callbackTls.ca === undefined ? {} : { ca: callbackTls.ca };
  // Efí presents its client certificate on every callback; the baseline calls back as any HTTPS client.
  const callbackDispatcher =
    profile.callbackMtls && callbackTls.cert !== undefined && callbackTls.key !== undefined
      ? new Agent({ connect: { ...trustReceivers, cert: callbackTls.cert, key: callbackTls.key } })
      : new Agent({ connect: trustReceivers });
  const callbacks = new CallbackSender(
    logger,
    options.callbackRetryDelaysMs ?? DEFAULT_CALLBACK_DELAYS_MS,
    callbackDispatcher,
  );
  const merchantName = options.merchantName ?? 'PSP SIMULADOR';
  const merchantCity = options.merchantCity ?? 'SAO PAULO';
  const context: SimulatorContext = {
    settings: {
      pixKey: options.pixKey,
      merchantName,
      merchantCity,
      // A fictitious address of the sandbox account holder, shown as a cobv's `recebedor`.
      recebedor: {
        cnpj: SANDBOX_CNPJ,
        nome: merchantName,
        logradouro: 'Avenida Paulista, 1000',
        cidade: merchantCity,
        uf: 'SP',
        cep: '01310100',
      },
      pathPrefix,
      cnpj: SANDBOX_CNPJ,
      devolucaoSettleMs: options.devolucaoSettleMs ?? 200,
      envioSettleMs: options.envioSettleMs ?? 200,
      profile,
    },
    logger,
    store,
    cobvs: new CobvStore(store),
    // The receiver's agent in the ids of recurrences: the first 8 characters of the account holder's CNPJ.
    recs: new RecStore(SANDBOX_CNPJ.slice(0, 8)),
    cobrs: new CobrStore((now) => store.identifier('E', now), logger),
    clock,
    infracoes: new InfracaoStore(),
    envios,
    envioRules: new EnvioRules(),
    settlements: new SettlementTimers(logger, () => clock.now()),
    callbacks,
    envioNotifier: new EnvioNotifier(
      envios,
      (chave) => store.webhook(chave),
      callbacks,
      options.envioCallbackDelaysMs ?? DEFAULT_ENVIO_CALLBACK_DELAYS_MS,
      envioCallback,
      logger,
      () => clock.now(),
    ),
    signer: new PayloadSigner(),
    faults: new FaultInjector(),
    webhookProbe: callbackTls,
  };
  const tokens = new TokenIssuer(
    options,
    {
      ttlSeconds: options.tokenTtlSeconds ?? 3600,
      omitExpiresIn: options.omitTokenExpiresIn,
      profile,
    },
    context.store,
  );

  const app = express();
  app.disable('x-powered-by');
  app.use(context.faults.middleware());
  app.use(tokens.router());
  app.use(payloadRouter(context));
  app.use(cobvPayloadRouter(context));
  app.use(recPayloadRouter(context));
  // Efí's own operations (envio de Pix, balance) live beside API Pix, at their own paths.
  app.use(envioRouter(context, tokens));
  // Efí's MED infractions, beside them (at banks without them, unknown paths).
  app.use(infracaoRouter(context));
  app.use(
    pathPrefix,
    // The client id is a value every bank knows (Sicoob wants it as a header).
    requireProfileExtras(profile, { ...options.profileValues, clientId: options.clientId }),
    tokens.requireBearer(),
    express.json({ limit: '64kb', type: ['application/json'] }),
  );
  app.use(
    pathPrefix,
    cobRouter(context),
    cobvRouter(context),
    locationRouter(context),
    pixRouter(context),
    sandboxRouter(context),
    cobvSandboxRouter(context),
    clockRouter(context),
    envioSandboxRouter(context),
    webhookRouter(context),
    recRouter(context),
    recSandboxRouter(context),
    locRecRouter(context),
    cobrRouter(context),
    cobrSandboxRouter(context),
  );
  app.use((req, res) =>
    sendProblem(res, 404, 'NaoEncontrado', 'Recurso não encontrado.', `${req.method} ${req.path}`),
  );
  app.use(errorHandler(logger));

  // Moving the clock does what fell due: cycles sent and debited first, then the requests and recurrences that expire
  // (a recurrence whose last cycle is still open waits for it).
  clock.onAdvance(async (now) => {
    await runCobrs(context, now);
    await expireRecs(context, now);
  });
  const callbackRunsEnded = () => context.callbacks.runsEnded();
  return {
    app,
    faults: context.faults,
    envioRules: context.envioRules,
    callbackRunsEnded,
    start: async (port, host = '127.0.0.1') => {
      const database = await openServiceDatabase({ url: options.databaseUrl, ...pspDatabase, poolSize: 5 });
      try {
        context.store.open(database);
        context.cobvs.open(database);
        context.recs.open(database);
        context.cobrs.open(database);
        await context.clock.open(database);
        context.infracoes.open(database);
        context.envios.open(database);
        await context.store.openAccount(options.pixKey, options.clientId, SANDBOX_CNPJ);
        // What was in processing when it last stopped settles now, or when due.
        for (const devolucao of await context.store.devolucoesInProcessing())
          settleWhenDue(context, devolucao);
        for (const envio of await context.envios.inProcessing()) settleEnvioWhenDue(context, envio);
        // The callbacks of sends settled before it stopped and never accepted are sent now.
        await context.envioNotifier.resume(options.pixKey);
        // Cycles that fell due while it was stopped are debited now (kept in the books, as a bank's schedule is).
        await runCobrs(context, context.clock.now());
        const server = await listen(app, port, host);
        const { port: boundPort } = server.address() as AddressInfo;
        logger.info({ host, port: boundPort, pathPrefix }, 'psp simulator listening');
        // Closing twice closes once (a test that restarts the simulator closes it itself, then its clean-up does).
        let closed: Promise<void> | undefined;
        return {
          url: `http://${host}:${boundPort}`,
          faults: context.faults,
          envioRules: context.envioRules,
          callbackRunsEnded,
          envioCallbacksPending: async () => (await context.envios.callbacksOwed(options.pixKey)).length,
          close: () =>
            (closed ??= close(server, context).then(async () => {
              await context.envioNotifier.stop();
              await database.destroy();
            })),
        };
      } catch (error) {
        stopWork(context);
        await context.envioNotifier.stop();
        await database.destroy();
        throw error;
      }
    },
  };
}

function listen(app: Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server: Server = app.listen(port, host, () => resolve(server));
    server.once('error', reject);
  });
}

function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: { type?: string; status?: number }, req, res, _next) => {
    if (error.type === 'entity.parse.failed') {
      sendProblem(res, 400, 'RequisicaoInvalida', 'Requisição inválida.', 'O corpo não é um JSON válido.');
      return;
    }
    if (error.status !== undefined && error.status >= 400 && error.status < 500) {
      sendProblem(res, error.status, 'RequisicaoInvalida', 'Requisição inválida.', error.type);
      return;
    }
    logger.error({ err: error, method: req.method, path: req.path }, 'psp simulator failure');
    sendProblem(res, 500, 'ErroInternoDoServidor', 'Erro interno do servidor.');
  };
}

/** Stops what runs on its own: callbacks in flight, devoluções and envios waiting to settle (the books keep them). */
function stopWork(context: SimulatorContext): void {
  context.callbacks.stop();
  void context.envioNotifier.stop();
  context.settlements.stop();
  context.clock.stop();
}

function close(server: Server, context: SimulatorContext): Promise<void> {
  stopWork(context);
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}

/**
 * The simulator with the sandbox credentials and key (the PIX adapter's defaults), on a free port, retrying callbacks
 * quickly, keeping its books in the test's database: what integration tests run against.
 */
export function startSandboxPspSimulator(
  databaseUrl: string,
  logger?: Logger,
  port = 0,
): Promise<RunningPspSimulator> {
  return createPspSimulator({
    databaseUrl,
    clientId: SANDBOX_PSP_CLIENT.id,
    clientSecret: SANDBOX_PSP_CLIENT.secret,
    pixKey: SANDBOX_PIX_KEY,
    callbackRetryDelaysMs: [50, 100, 200],
    ...(logger ? { logger } : {}),
  }).start(port);
}
