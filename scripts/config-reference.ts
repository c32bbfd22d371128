/**
 * Writes docs/configuration.md, the configuration reference, from the config schemas every process validates its
 * environment with (`src/config.ts`, joi): names, defaults, production rules and accepted values come from the
 * schemas, the meaning of each variable from the table below. `pnpm config-reference` rewrites the file;
 * `infra/deploy/test/docs.unit.test.ts` fails when it is out of date or a variable has no meaning here.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Joi, metricsEnv, serviceEnv, variableNames } from '../packages/config/src';
import { applyDefinitionsConfigSchema, waitForDefinitionsConfigSchema } from '../infra/deploy/src/config';
import { pspSimulatorSchema } from '../infra/psp-simulator/src/config';
import { solanaLocalnetSchema } from '../infra/solana-localnet/src/config';
import { mailCatcherSchema } from '../infra/mail-catcher/src/config';
import { apiGatewaySchema } from '../services/api-gateway/src/config';
import { checkoutConfigSchema } from '../services/checkout/src/config';
import { customerConfigSchema } from '../services/customer/src/config';
import { dashboardConfigSchema } from '../services/dashboard/src/config';
import { ledgerConfigSchema } from '../services/ledger/src/config';
import { paymentConfigSchema } from '../services/payment/src/config';
import { pixAdapterConfigSchema } from '../services/pix-adapter/src/config';
import { solanaWatcherConfigSchema } from '../services/solana-watcher/src/config';
import { webhookDispatcherConfigSchema } from '../services/webhook-dispatcher/src/config';

const repoRoot = join(__dirname, '..');
export const CONFIGURATION_REFERENCE = join(repoRoot, 'docs/configuration.md');

/** A process whose schema the reference lists. */
interface Section {
  title: string;
  source: string;
  schema: Joi.ObjectSchema;
  /** The variables the section leaves to "Every service". */
  omitShared: boolean;
  intro?: string;
}

const sharedSchema = Joi.object({ ...serviceEnv, ...metricsEnv });
const sharedVariables = new Set(variableNames(sharedSchema));

const sections: Section[] = [
  {
    title: 'Every service',
    source:
      '`packages/config/src/index.ts` (`serviceEnv`, `metricsEnv`) and `packages/config/src/telemetry.ts`',
    schema: sharedSchema,
    omitShared: false,
    intro:
      'Each service builds its schema with `serviceSchema(own)`, which starts with this block. `METRICS_PORT` and ' +
      '`METRICS_HOST` are read by every service but the gateway, which serves `/metrics` on its API port.',
  },
  {
    title: 'api-gateway',
    source: '`services/api-gateway/src/config.ts`',
    schema: apiGatewaySchema,
    omitShared: true,
  },
  {
    title: 'payment',
    source: '`services/payment/src/config.ts`',
    schema: paymentConfigSchema,
    omitShared: true,
  },
  {
    title: 'pix-adapter',
    source: '`services/pix-adapter/src/config.ts`',
    schema: pixAdapterConfigSchema,
    omitShared: true,
  },
  {
    title: 'solana-watcher',
    source: '`services/solana-watcher/src/config.ts`',
    schema: solanaWatcherConfigSchema,
    omitShared: true,
  },
  {
    title: 'checkout',
    source: '`services/checkout/src/config.ts`',
    schema: checkoutConfigSchema,
    omitShared: true,
  },
  {
    title: 'customer',
    source: '`services/customer/src/config.ts`',
    schema: customerConfigSchema,
    omitShared: true,
    intro: 'Only the block every service reads.',
  },
  {
    title: 'ledger',
    source: '`services/ledger/src/config.ts`',
    schema: ledgerConfigSchema,
    omitShared: true,
    intro:
      'The settlement delays (docs/money-model.md#settlement), how often the settlement sweep runs, its own consumer prefetch, and the owner that migrates its tables. Its `DATABASE_URL` is the role it serves as, `ledger_runtime` (or a member of it), which may neither own nor change what the books hold: the ledger refuses to start on a superuser, an owner or a role allowed more ([roles](operating.md#the-ledgers-database-roles)); in sandbox, left the local administrator, it creates that role and serves as it.',
  },
  {
    title: 'webhook-dispatcher',
    source: '`services/webhook-dispatcher/src/config.ts`',
    schema: webhookDispatcherConfigSchema,
    omitShared: true,
  },
  {
    title: 'dashboard',
    source: '`services/dashboard/src/config.ts`',
    schema: dashboardConfigSchema,
    omitShared: true,
    intro:
      'The merchant dashboard ([dashboard.md](dashboard.md)). Of the block every service reads it takes all but the ' +
      'broker settings (it exchanges no message) and the metrics listener: `/healthz`, `/readyz` and `/metrics` are ' +
      'on `DASHBOARD_PORT`.',
  },
  {
    title: 'PSP simulator (sandbox)',
    source: '`infra/psp-simulator/src/config.ts`',
    schema: pspSimulatorSchema,
    omitShared: false,
    intro:
      "Under `npm start` the simulator is given the PIX adapter's credentials and key, and the stack's database.",
  },
  {
    title: 'Mail catcher (sandbox)',
    source: '`infra/mail-catcher/src/config.ts`',
    schema: mailCatcherSchema,
    omitShared: false,
    intro:
      "MailDev, run by `npm start` in the sandbox: the dashboard's `SMTP_URL` points at its SMTP port, and its web " +
      'inbox and REST API (`GET /email`) show every mail the dashboard sent ([dashboard.md](dashboard.md#e-mail)).',
  },
  {
    title: 'Solana local chain (sandbox)',
    source: '`infra/solana-localnet/src/config.ts`',
    schema: solanaLocalnetSchema,
    omitShared: false,
    intro:
      "Under `npm start` the chain is given the watcher's wallets. The lags and limits make it behave as a real node " +
      'behind a public endpoint ([payments.md](payments.md#rails)).',
  },
  {
    title: 'RabbitMQ definitions: the apply step',
    source: '`infra/deploy/src/config.ts`',
    schema: applyDefinitionsConfigSchema,
    omitShared: false,
    intro:
      'The compose one-shot service and the Kubernetes Job that apply `infra/rabbitmq/definitions.json`.',
  },
  {
    title: 'RabbitMQ definitions: the wait step',
    source: '`infra/deploy/src/config.ts`',
    schema: waitForDefinitionsConfigSchema,
    omitShared: false,
    intro: 'The init container of every Deployment, which waits until the definitions are applied.',
  },
];

/** What each variable means; `<section title>/<VARIABLE>` overrides the plain name in one section. */
export const meanings: Record<string, string> = {
  APP_ENV:
    '`sandbox` turns on the sandbox routes and defaults; `production` refuses every development value. `npm start`, the tests and `infra/compose/sandbox.env` set `sandbox`',
  LOG_LEVEL: 'pino level',
  DATABASE_URL:
    'the PostgreSQL database (created if missing in sandbox); each service keeps its own schema in it',
  AMQP_URL: 'the RabbitMQ broker, one address (or set `AMQP_URLS` instead, never both)',
  AMQP_URLS:
    "a RabbitMQ cluster's nodes, comma-separated `amqp://`/`amqps://` URLs: each process starts at a random one and moves to the next when its node goes away ([cluster and failover](operating.md#a-rabbitmq-cluster-and-failover))",
  AMQP_PREFIX: 'a prefix on every exchange and queue name (tests isolate with it)',
  BROKER_RETRY_MAX_MS:
    'how long a transiently failing message is retried with backoff before it is parked (unset: one hour)',
  BROKER_PREFETCH:
    'unacked messages each consumer takes at once ([measured](benchmarks.md#consumer-prefetch-and-database-pool-sizes))',
  DATABASE_POOL_SIZE: 'PostgreSQL connections per process at most',
  MIGRATION_DATABASE_URL:
    "the owner of the ledger's tables, which runs its migrations ([roles](operating.md#the-ledgers-database-roles)). Unset: in sandbox `DATABASE_URL` migrates; in production the ledger does not migrate at start (refusing a schema not migrated) and its `migrate` command refuses to run",
  'ledger/BROKER_PREFETCH':
    'as for every service, with a default of its own: the paid payments in flight are posted together, so a batch is as large as this lets it be ([measured](benchmarks.md#the-ledgers-postings-pnpm-benchledger))',
  SHUTDOWN_TIMEOUT_MS:
    "how long a stop (SIGTERM to exit) may take before what still runs is abandoned to redelivery and the process exits 1; keep the orchestrator's grace period above it plus 7 s. The gateway refuses to start unless it exceeds `RPC_TIMEOUT_MS`, the webhook dispatcher unless it exceeds `WEBHOOK_TIMEOUT_MS`",
  OTEL_EXPORTER_OTLP_ENDPOINT:
    'base URL of an OTLP/HTTP receiver (e.g. `http://otel-collector:4318`; `/v1/traces` is appended). Unset, tracing is off and no tracing code is loaded; log lines still carry trace ids',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT:
    'the full traces URL, taken as it is; wins over `OTEL_EXPORTER_OTLP_ENDPOINT`',
  OTEL_EXPORTER_OTLP_PROTOCOL: "OTLP/HTTP encoding; gRPC is refused at start (use the collector's port 4318)",
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'the same for traces; wins over `OTEL_EXPORTER_OTLP_PROTOCOL`',
  OTEL_SERVICE_NAME:
    "the `service.name` of the spans (unset: the service's name); `npm start` names every process itself and refuses it",
  OTEL_RESOURCE_ATTRIBUTES:
    'attributes on every span, e.g. `deployment.environment.name=production`; `service.instance.id` is a fresh UUID per start unless given here',
  OTEL_EXPORTER_OTLP_HEADERS:
    "headers sent with every export, e.g. a hosted collector's `authorization=Bearer%20...`: a secret; never echoed",
  OTEL_TRACES_SAMPLER:
    'which new traces are kept; `parentbased_traceidratio` with `0.1` keeps one payment in ten, whole',
  OTEL_TRACES_SAMPLER_ARG: "the sampler's ratio",
  METRICS_PORT: 'where `/metrics` and `/healthz` listen (unset: not served)',
  METRICS_HOST: 'the interface the metrics listener binds; `0.0.0.0` behind a scraper',
  // api-gateway
  PORT: 'the HTTP port of the API, the hosted checkout, `/docs` and the probes',
  REDIS_URL: 'Redis, for rate limits and the API-key cache',
  REDIS_PREFIX: 'a prefix on every Redis key',
  ADMIN_TOKEN: "the operator API's bearer token (at least 32 characters)",
  RPC_TIMEOUT_MS: 'how long a request waits for its service before `503 SERVICE_UNAVAILABLE`',
  RATE_LIMIT_PER_MINUTE: 'requests per API key per rolling minute',
  DASHBOARD_RATE_LIMIT_PER_MINUTE:
    "requests per rolling minute of a key the operator API marked as the merchant dashboard's (instead of RATE_LIMIT_PER_MINUTE)",
  CHECKOUT_RATE_LIMIT_PER_MINUTE: 'hosted checkout requests per buyer IP per minute',
  ADMIN_RATE_LIMIT_PER_MINUTE:
    "operator API requests per caller IP per minute; the dashboard's sign-ups, key pages and console count against it from one address, so a busy dashboard needs more",
  IDEMPOTENCY_RESPONSE_KEY: 'AES-256-GCM key (base64 of 32 bytes) sealing stored idempotent answers',
  IDEMPOTENCY_PURGE_INTERVAL_MS: 'how often expired idempotency records are deleted',
  PUBLIC_BASE_URL: 'the public URL checkout links use (unset in sandbox: `http://localhost:$PORT`)',
  TRUST_PROXY: 'proxy hops to trust for the client IP',
  PAYMENT_COPY_MAX_AGE_MS:
    'a payment copy known true longer ago than this (by itself, and by the change feed) is read again from the payment service, and lists go to it once the change feed was last read to its end longer ago than this (docs/adr/0042, 0043)',
  PAYMENT_COPY_CATCH_UP_INTERVAL_MS:
    "how often each gateway replica reads the payment service's change feed into its payment copies: the bound on how late a lost event's change reaches them (docs/adr/0043)",
  // dashboard
  DASHBOARD_PORT: 'the HTTP port of the merchant dashboard and its probes (`npm start`: 3080)',
  GATEWAY_URL:
    "the gateway's address, whose public API (`/v1`) and operator API (`/admin/v1`) the dashboard acts through (unset in sandbox: `http://127.0.0.1:3000`)",
  'dashboard/REDIS_URL': 'Redis, for sessions and the sign-in counters',
  'dashboard/ADMIN_TOKEN':
    "the gateway's operator token, with which the dashboard creates businesses at sign-up, manages their API keys and sets an owner's payout account",
  'dashboard/TRUST_PROXY': 'proxy hops to trust for the client IP (the sign-in limit counts per client IP)',
  DASHBOARD_SEAL_KEY:
    "AES-256-GCM key (base64 of 32 bytes) sealing the API key the dashboard holds for each business and each person's second-factor (TOTP) secret",
  SESSION_IDLE_SECONDS: 'how long a dashboard session lives without a request',
  LOGIN_MAX_FAILURES:
    'failed sign-ins of one e-mail address before it is locked; likewise wrong second-factor codes of one person',
  LOGIN_LOCK_SECONDS:
    'how long a lock (of passwords or of codes) lasts; failures are counted over the same window',
  LOGIN_ATTEMPTS_PER_MINUTE:
    'sign-in attempts (passwords, second-factor codes, and mailed links asked for) one client IP may make per minute, whatever the address',
  DASHBOARD_PUBLIC_URL:
    "the dashboard's address as people reach it: every link it mails starts with it, never with a request's Host (`npm start`: the address it starts the dashboard on)",
  SMTP_URL:
    'the SMTP relay the dashboard mails through, credentials included: `smtp://user:password@host:587` (STARTTLS when offered) or `smtps://...:465` (`npm start`: its mail catcher)',
  MAIL_FROM: "the sender of the dashboard's mails, e.g. `Painel <painel@example.com>`",
  // payment
  RAIL_RPC_TIMEOUT_MS: 'how long a create waits for its rail',
  PIX_EXPIRES_IN_SECONDS: "a PIX charge's lifetime",
  CREATE_RESERVATION_RETENTION_HOURS:
    "how long a create command's payment id reservation is kept: longer than the 24 h idempotency window",
  REFUND_INTENT_RETENTION_HOURS:
    "how long a refund command's finished intent (opened, given up) is kept: longer than the 24 h idempotency window; one still reserving is never purged",
  RECONCILE_AFTER_SECONDS: 'an open payment this old is checked with its rail, and again as often',
  RECONCILE_INTERVAL_SECONDS: 'the pause between reconciliation passes',
  SETTLEMENT_DELAY_PIX:
    "seconds a paid PIX payment's net stays `pending` before it becomes `available` ([money-model.md](money-model.md#settlement)); sandbox 0, production one day",
  SETTLEMENT_DELAY_CRYPTO: 'the same (seconds) for a paid crypto payment; sandbox 0, production one day',
  SETTLEMENT_SWEEP_INTERVAL_MS:
    'the pause between two sweeps for due settlements (one also runs at start and after each payment posted)',
  RECONCILIATION_INTERVAL_SECONDS:
    'how often the books are reconciled with the PSP and the wallet ([operating.md](operating.md#reconciliation-of-the-books)), once per interval across all replicas; 0: on demand only',
  RECONCILIATION_PERIOD_SECONDS:
    'how far back a reconciliation run looks; a little over the interval, so runs overlap',
  RECONCILIATION_GRACE_SECONDS:
    'money in flight: a rail movement younger than this that the books have not posted yet is reported as pending, not as a difference',
  RECONCILIATION_RAIL_TIMEOUT_MS:
    'how long a run waits for the PIX adapter and the Solana watcher before it is stored `failed`',
  RECONCILIATION_METRICS_REFRESH_MS:
    'how often each replica reads the newest completed reconciliation run again for its gauges, so every replica reports the newest run, whichever ran it',
  RECONCILIATION_PSP_OPENING_BALANCE_CENTAVOS:
    "what the PSP account held before the books began: 0 for an account opened for the gateway (the sandbox PSP's opens empty)",
  REFUND_RESEND_AFTER_SECONDS:
    "a refund still pending (or an operator's return of held funds still in flight) this long after its rail was (last) asked is asked again",
  LEDGER_RPC_TIMEOUT_MS: "how long a refund waits for the ledger's answer to its reservation",
  REFUND_POSTING_WAIT_MS:
    'how long a refund asked for right after its payment was paid waits for the ledger to post the payment, asking again, before `SERVICE_UNAVAILABLE` ([refunds.md](refunds.md#the-balance-first))',
  RESERVATION_CONFIRM_AFTER_SECONDS:
    "how long a refund's reservation waits for its refund to be confirmed before the payment service is asked whether the refund exists; one never opened is released ([money-model.md](money-model.md#refunds))",
  RESERVATION_SWEEP_INTERVAL_MS: 'the pause between two sweeps for unconfirmed refund reservations',
  DEFAULT_FEE_PIX:
    'the fee rule a business without one gets at its first PIX payment, `<basis points>bps+<fixed centavos>` (`99bps+0` = 0.99 % + R$ 0,00), then kept as its own; empty: none (`NO_FEE_RULE`)',
  DEFAULT_FEE_CRYPTO: 'the same for crypto payments',
  // pix-adapter
  PSP_PROFILE:
    'how the PSP differs from API Pix as the Central Bank specifies it (`bcb`): `efi`, `bb`, `itau`, `sicoob`, `inter`, `santander` ([psp-profiles.md](psp-profiles.md))',
  PSP_DEVELOPER_APP_KEY:
    "Banco do Brasil's developer application key, sent as `gw-dev-app-key` on every call; required by the `bb` profile",
  PSP_ACCOUNT_NUMBER:
    "Inter's account number (digits), sent as `x-conta-corrente` on every call; required by the `inter` profile",
  PSP_BASE_URL: "the PSP's API Pix base URL",
  PSP_PATH_PREFIX: "the path prefix of the PSP's API Pix",
  PSP_OAUTH_TOKEN_URL: "the PSP's OAuth token endpoint (unset: base URL + `/oauth/token`)",
  PSP_CLIENT_ID: 'OAuth client id at the PSP',
  PSP_CLIENT_SECRET: 'OAuth client secret at the PSP (not used, nor required, with the `sicoob` profile)',
  PSP_OAUTH_SCOPE: 'scopes asked for (empty: none sent)',
  PSP_AUTOMATIC_PIX_OAUTH_SCOPE:
    "scopes of Pix Automático's own token (unset: `rec.* solicrec.* cobr.* payloadlocationrec.* webhookrec.* webhookcobr.*`)",
  PSP_RECEIVER_ACCOUNT:
    'the receiving account a Pix Automático cycle names (`cobr.recebedor`), `agencia/conta/tipoConta`; unset: subscriptions refused `AUTOMATIC_PIX_NOT_SUPPORTED`',
  PSP_MTLS_CERT: 'path of the PEM client certificate for mutual TLS, which most PSPs require',
  PSP_MTLS_KEY: 'path of the PEM key of that certificate',
  PSP_MTLS_CA: "path of the PEM CA the PSP's certificate is checked against",
  PSP_MTLS_PFX:
    'path of the client certificate and key as one PKCS#12 file (.p12/.pfx), instead of the PEM pair',
  PSP_MTLS_PASSPHRASE: 'the passphrase of that PKCS#12 file',
  PSP_TIMEOUT_MS: 'time limit of one call to the PSP',
  PSP_MAX_RETRIES: 'retries of a call within a command',
  PIX_KEY: 'the receiving Pix key',
  MERCHANT_CITY: "the BR Code's city (accents dropped)",
  CALLBACK_HOST: 'the interface the PSP callback listener binds',
  CALLBACK_PORT: 'the port of the PSP callback listener',
  CALLBACK_PUBLIC_URL:
    'the public URL registered at the PSP for callbacks (unset in sandbox: the bound address)',
  CALLBACK_TOKEN: 'the secret token in the callback path',
  PSP_ACCOUNT_SEALING_KEY:
    "AES-256-GCM key (base64 of 32 bytes) sealing businesses' own PSP credentials (secret, certificate) at rest",
  CALLBACK_TLS_CERT:
    'path of the PEM certificate the callback listener serves HTTPS with (unset: plain HTTP, TLS at the ingress)',
  CALLBACK_TLS_KEY: 'path of the PEM key of that certificate',
  CALLBACK_CLIENT_CA:
    "path of the PEM CA whose client certificates the callback listener requires, refusing any other connection (the PSP's, e.g. Efí's); needs `CALLBACK_TLS_CERT`",
  CALLBACK_MTLS_AT_INGRESS:
    "the ingress in front of the callback listener requires the PSP's client certificate itself; without it, a profile whose PSP calls back over mutual TLS (`efi`) needs `CALLBACK_CLIENT_CA` in production",
  EXPIRY_SWEEP_INTERVAL_MS: 'how often charges past their window are closed',
  CALLBACK_OVERDUE_SECONDS:
    "while a charge has had no callback this long, the PSP's list of received Pix is read",
  CHARGE_RECHECK_SECONDS: 'each open charge is also read alone at the PSP this often, within the budget',
  RECURRENCE_RECHECK_SECONDS:
    'a Pix Automático recurrence pending or active, or an open cycle, unchecked this long is read at the PSP (lost callbacks)',
  PSP_POLL_REQUESTS_PER_MINUTE:
    'requests a minute the overdue-callback pass makes at the PSP (its lists, the MED window sweep, charge reads), all replicas together',
  CALLBACK_POLL_INTERVAL_MS: 'how often those reads run',
  DEVOLUCAO_OVERDUE_SECONDS:
    'a devolução still open this long after its last change is read again at the PSP',
  PSP_UNKNOWN_CHARGE_GRACE_SECONDS:
    'an open charge the PSP has not known for this long fails (`pix.charge.closed`, reason `failed`)',
  PAYOUT_PAYER_PIX_KEY:
    "the platform account's own Pix key payouts are sent from, with a webhook at the PSP (unset: `PIX_KEY`)",
  PAYOUT_OVERDUE_SECONDS: 'a payout the PSP holds is read again this long after the last look',
  PAYOUT_RETRY_FIRST_SECONDS:
    'the wait before a payout attempt that did not go through is tried again, doubling each time',
  PAYOUT_RETRY_MAX_SECONDS: 'the longest such wait',
  // solana-watcher
  SOLANA_RPC_URL: 'the Solana JSON-RPC endpoint',
  SOLANA_RPC_REQUESTS_PER_SECOND: 'the RPC budget the watcher allows itself, all methods together',
  CONFIRMATION_GRACE_MS: 'how long after its window a request waits for a transfer still confirming',
  RECEIVING_WALLET: 'the custodial wallet every payment goes to',
  MINT_USDC: 'the USDC mint accepted',
  MINT_USDT: 'the USDT mint accepted',
  MINT_EURC: 'the EURC mint accepted',
  TOKEN_DECIMALS: "the tokens' decimals",
  QUOTE_PROVIDER: 'where BRL→token prices come from',
  FIXED_RATES: 'the fixed rates, tokens per BRL',
  QUOTE_SPREAD_BPS: 'spread added to a quote',
  QUOTE_MAX_AGE_MS: 'the oldest price used',
  QUOTE_MAX_DEVIATION_BPS: 'the largest disagreement allowed between the two live sources',
  ARRIVAL_QUOTE_MAX_AGE_MS:
    "how long a quote values tokens that arrive outside their payment's window (late, excess) before a new one is taken",
  COINGECKO_URL: 'a live price source',
  BINANCE_URL: 'a live price source',
  POLL_INTERVAL_MS: 'the shortest interval between chain scans',
  UNREADABLE_RETRY_MS:
    'how soon a transaction the watcher could not read is read again (longer after each try, up to 60 tries)',
  PAYMENT_WINDOW_SECONDS: 'how long a buyer has to pay a crypto payment',
  REFUND_SIGNER:
    'what signs crypto refunds as `RECEIVING_WALLET`: `env` (`REFUND_SIGNER_SECRET_KEY`), `keypair-file` (`REFUND_SIGNER_KEYPAIR_FILE`) or `vault-transit` (a HashiCorp Vault Transit ed25519 key, `VAULT_*`); see docs/operating.md#the-refund-signer',
  REFUND_SIGNER_SECRET_KEY:
    'with `REFUND_SIGNER=env`: base58 64-byte secret key of `RECEIVING_WALLET`, never logged; must match the wallet; must be unset with another signer',
  REFUND_SIGNER_KEYPAIR_FILE:
    'with `REFUND_SIGNER=keypair-file`: path of the Solana keypair file (`solana-keygen new -o`, a JSON array of 64 numbers) of `RECEIVING_WALLET`, e.g. on a secret volume; read and checked at start',
  VAULT_ADDR: "with `REFUND_SIGNER=vault-transit`: Vault's address (`https://vault.internal:8200`)",
  VAULT_TOKEN:
    'with `REFUND_SIGNER=vault-transit`: the Vault token (`X-Vault-Token`), allowed to read the key and sign with it; never logged',
  VAULT_NAMESPACE:
    'with `REFUND_SIGNER=vault-transit`: the Vault Enterprise namespace of the mount (`X-Vault-Namespace`)',
  VAULT_TRANSIT_MOUNT: 'with `REFUND_SIGNER=vault-transit`: where the Transit secrets engine is mounted',
  VAULT_TRANSIT_KEY:
    "with `REFUND_SIGNER=vault-transit`: the name of the `ed25519` Transit key holding `RECEIVING_WALLET`'s key (not derived)",
  SOLANA_MAX_COMPUTE_UNIT_PRICE:
    "the highest compute-unit price (micro-lamports) a refund or return offers; each starts at recent blocks' 75th percentile and is raised while it does not land",
  FEE_PAYER_LOW_BALANCE_SOL:
    "below this many SOL in `RECEIVING_WALLET` (it pays refunds' fees) `SolanaFeePayerBalanceLow` fires",
  FEE_PAYER_BALANCE_INTERVAL_MS: "how often the fee payer's SOL balance is read (one RPC request)",
  SANDBOX_PAYER_SECRET_KEY:
    "the local chain's funded test wallet, which pays simulated payments; unused in production",
  // checkout
  PAYMENT_RPC_TIMEOUT_MS: 'how long a checkout session waits for its payment',
  // webhook-dispatcher
  WEBHOOK_SECRET_KEY: 'AES-256-GCM key (base64 of 32 bytes) sealing webhook secrets',
  WEBHOOK_RETRY_SCHEDULE:
    'the delays between attempts, e.g. `1s,2s,4s` (units ms, s, m, h, d); unset: 5s, 30s, 2m, 10m, 30m, 1h, 3h, 6h, then every 6 h up to 3 days',
  WEBHOOK_ALLOW_PRIVATE_TARGETS:
    'whether webhook URLs may resolve to private, loopback or link-local addresses',
  WEBHOOK_TIMEOUT_MS: "an attempt's time limit",
  WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT: 'attempts in flight per endpoint origin',
  DELIVERY_POLL_INTERVAL_MS: 'how often due deliveries are claimed',
  DELIVERY_LEASE_MS: 'how long a claim lasts (longer than an attempt)',
  WORKER_ID: "the claims' owner (and of the event logs' lease)",
  EVENT_LOG_RECONCILE_INTERVAL_MS:
    "how often one replica reads the payment service's and the ledger's event logs for events the broker lost",
  EVENT_LOG_PAGE_SIZE: 'entries one read of an event log asks for',
  EVENT_LOG_SETTLE_SECONDS:
    'how old an event log entry must be before the reading moves past it (a margin: the owner also holds back entries an open transaction could precede)',
  EVENT_LOG_READ_TIMEOUT_MS:
    "how long one read of an event log waits for its owner's answer; a replica whose read fails gives the log's lease up",
  // PSP simulator
  MAIL_CATCHER_HOST: "the address the mail catcher's SMTP and web listeners bind to",
  MAIL_CATCHER_SMTP_PORT: 'the SMTP port it accepts mail on (`npm start` points the dashboard here)',
  MAIL_CATCHER_WEB_PORT: 'its web inbox and REST API (`GET /email`), printed in the `npm start` banner',
  PSP_SIMULATOR_HOST: "the simulator's address",
  PSP_SIMULATOR_PORT: "the simulator's port",
  PSP_SIMULATOR_DATABASE_URL:
    'where the simulator keeps its books (schema `psp_simulator`), so a restart forgets no cob, Pix, devolução, webhook or token',
  PSP_SIMULATOR_PATH_PREFIX: 'the path prefix of its API Pix',
  PSP_SIMULATOR_PROFILE:
    "the bank it behaves like, refusing what that bank refuses (the adapter's `PSP_PROFILE` values, [psp-profiles.md](psp-profiles.md))",
  PSP_SIMULATOR_DEVELOPER_APP_KEY: 'the developer application key it requires in the `bb` profile',
  PSP_SIMULATOR_ACCOUNT_NUMBER: 'the account number it requires in the `inter` profile',
  PSP_SIMULATOR_CLIENT_ID: 'the OAuth client it accepts',
  PSP_SIMULATOR_CLIENT_SECRET: "that client's secret",
  PSP_SIMULATOR_PIX_KEY: 'the Pix key of its one account',
  PSP_SIMULATOR_MERCHANT_NAME: "the account holder's name in the payload it serves",
  PSP_SIMULATOR_MERCHANT_CITY: "the account holder's city",
  PSP_SIMULATOR_ENVIO_CALLBACK_FIRST_RETRY_MS:
    "the first wait before a sent Pix's callback the webhook refused is tried again (ten tries, each wait doubling; kept in its books across a restart)",
  // Solana local chain
  SOLANA_LOCALNET_PORT: "the local chain's JSON-RPC port",
  SOLANA_LOCALNET_HOST: "the local chain's address",
  SOLANA_LOCALNET_RECEIVING_WALLET: 'the receiving wallet it creates token accounts for',
  SOLANA_LOCALNET_PAYER_SECRET_KEY: 'the test wallet it funds, which pays simulated payments',
  SOLANA_LOCALNET_SEED_WALLETS: 'more wallets to fund',
  SOLANA_LOCALNET_CONFIRMED_LAG_MS: 'how long a transaction takes to reach `confirmed`',
  SOLANA_LOCALNET_FINALIZED_LAG_MS: 'how long it then takes to reach `finalized`',
  SOLANA_LOCALNET_TRANSACTION_LAG_MS: 'how long `getTransaction` lags the signature listing (an RPC pool)',
  SOLANA_LOCALNET_DROP_TRANSACTIONS: 'drop sent transactions (resend drills)',
  SOLANA_LOCALNET_CONGESTION_CU_PRICE:
    'a congested cluster: transactions offering fewer micro-lamports per compute unit never land, and recent fees show this price (0: none)',
  SOLANA_LOCALNET_RATE_LIMIT:
    'per-method requests allowed per window, e.g. `getTransaction=40,*=100` (unset: none)',
  SOLANA_LOCALNET_RATE_WINDOW_MS: "the rate limit's window",
  SOLANA_LOCALNET_RETRY_AFTER: 'whether a 429 carries `Retry-After`',
  // RabbitMQ definitions
  RABBITMQ_MANAGEMENT_URL: 'the RabbitMQ management API the definitions are applied through',
  RABBITMQ_MANAGEMENT_USERNAME: 'a RabbitMQ user tagged `administrator` (it creates the vhost and policies)',
  RABBITMQ_MANAGEMENT_PASSWORD: "that user's password",
  RABBITMQ_DEFINITIONS_FILE:
    'the definitions applied, and waited for; leave it unset so the file is the one the services were built with',
  RABBITMQ_APP_USERS:
    'more users (comma-separated) let into every vhost of the file, besides the user of `AMQP_URL`',
  RABBITMQ_WAIT_SECONDS: 'how long to wait for a broker still starting before failing',
  'RabbitMQ definitions: the wait step/RABBITMQ_WAIT_SECONDS':
    'how long to wait for the definitions before failing (the kubelet restarts the init container)',
  RABBITMQ_CLUSTER_NODES:
    'the nodes the cluster must run before the queues are declared, so each quorum queue has a member on each (`3` for the clusters of docker-compose.yml and infra/k8s)',
  'RabbitMQ definitions: the apply step/AMQP_URLS':
    "the services' own `AMQP_URLS` (a cluster's nodes, one user and vhost at each): as `AMQP_URL`, from its first address",
  'RabbitMQ definitions: the wait step/AMQP_URLS':
    "the services' own `AMQP_URLS`, to log in with (each node in turn)",
  'RabbitMQ definitions: the apply step/AMQP_URL':
    "the services' own `AMQP_URL`: its user is let into its vhost, and a vhost the file does not declare is refused",
  'RabbitMQ definitions: the wait step/AMQP_URL': "the services' own `AMQP_URL`, to log in with",
};

interface Described {
  type: string;
  flags?: { default?: unknown; presence?: string; only?: boolean; result?: string };
  rules?: Array<{ name: string; args?: Record<string, unknown> }>;
  allow?: unknown[];
  invalid?: unknown[];
  matches?: Array<{ schema?: Described }>;
  whens?: Array<{ ref?: { path: string[] }; is?: Described; then?: Described; otherwise?: Described }>;
}

/** A default as the reference shows it: values made per process (host and pid) as what they are. */
function shownValue(value: unknown): string {
  if (value === undefined) return '';
  // A default made from other settings says how (its `shown`), or that it is made at start.
  if (typeof value === 'function') return (value as { shown?: string }).shown ?? 'computed at start';
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === `${hostname()}:${process.pid}`) return '`<host>:<pid>`';
  if (text.startsWith(`${repoRoot}/`)) text = text.slice(repoRoot.length + 1);
  if (text === '') return 'empty';
  return `\`${text}\``;
}

function limit(arg: unknown): string {
  if (typeof arg === 'object' && arg !== null && 'key' in arg)
    return `\`${String((arg as { key: string }).key)}\``;
  return String(arg);
}

/** The accepted values of a variable, in words. */
function accepted(d: Described): string {
  if (d.type === 'alternatives')
    return (d.matches ?? [])
      .map((m) => (m.schema ? accepted(m.schema) : ''))
      .filter((text) => text !== '')
      .join(' or ');
  const parts: string[] = [];
  const listed = (d.allow ?? []).filter((v) => typeof v !== 'object');
  if (d.flags?.only) parts.push(`one of ${listed.map((v) => `\`${String(v)}\``).join(', ')}`);
  else if (d.type === 'boolean') parts.push('`true` or `false`');
  else if (d.type === 'number') parts.push('a number');
  else if (d.type === 'string') parts.push('text');
  for (const rule of d.rules ?? []) {
    const args = rule.args ?? {};
    switch (rule.name) {
      case 'integer':
        parts[0] = 'an integer';
        break;
      case 'port':
        parts[0] = 'a port';
        break;
      case 'min':
        parts.push(
          d.type === 'string' ? `at least ${limit(args.limit)} characters` : `≥ ${limit(args.limit)}`,
        );
        break;
      case 'max':
        parts.push(
          d.type === 'string' ? `at most ${limit(args.limit)} characters` : `≤ ${limit(args.limit)}`,
        );
        break;
      case 'sign':
        parts.push(args.sign === 'positive' ? '> 0' : '< 0');
        break;
      case 'greater':
        parts.push(`> ${limit(args.limit)}`);
        break;
      case 'less':
        parts.push(`< ${limit(args.limit)}`);
        break;
      case 'uri': {
        const scheme = (args.options as { scheme?: string[] } | undefined)?.scheme;
        parts[0] = scheme ? `a URL (${scheme.join(', ')})` : 'a URL';
        break;
      }
      case 'hostname':
        parts[0] = 'a host name or IP address';
        break;
      case 'pattern': {
        const name = (args.options as { name?: string } | undefined)?.name;
        parts.push(name ? `a ${name}` : 'of a fixed format');
        break;
      }
      case 'custom':
        parts.push('checked at start');
        break;
      default:
        parts.push(rule.name);
    }
  }
  if (!d.flags?.only && listed.includes('')) parts.push('empty allowed');
  return parts.join(', ');
}

interface Row {
  name: string;
  defaults: string;
  production: string;
  accepted: string;
}

/**
 * A variable read only when another one has some values (the refund signer's variables, by REFUND_SIGNER): its row is
 * the row of the branch that reads it (the other is stripped), its rule saying when.
 */
function chosenRow(name: string, d: Described): Row | null {
  const stripped = (branch?: Described) => branch?.flags?.result === 'strip';
  const choice = (d.whens ?? []).find(
    (when) => when.ref?.path.join('.') !== 'APP_ENV' && (stripped(when.then) || stripped(when.otherwise)),
  );
  if (!choice?.ref) return null;
  const values = (choice.is?.allow ?? [])
    .filter((value) => typeof value !== 'object')
    .map((value) => `\`${String(value)}\``)
    .join(', ');
  const readsThen = !stripped(choice.then);
  const branch = readsThen ? choice.then : choice.otherwise;
  if (!branch) return null;
  const inner = row(name, branch);
  const variable = `\`${choice.ref.path.join('.')}\``;
  const condition = readsThen ? `with ${variable} ${values}` : `unless ${variable} is ${values}`;
  let rule = `${condition}: ${inner.production}`;
  if (inner.production === 'no') rule = 'no';
  else if (inner.production === '**always**') rule = `**${condition}**`;
  return { ...inner, production: rule };
}

function row(name: string, d: Described): Row {
  const chosen = chosenRow(name, d);
  if (chosen) return chosen;
  let sandbox: unknown = d.flags?.default;
  let production: unknown = d.flags?.default;
  let required = false;
  let refusesSandboxValue = false;
  let productionOnly = false;
  // A rule that depends on another variable first (AMQP_URL unless AMQP_URLS is set) keeps its APP_ENV rule inside.
  const whens = (d.whens ?? []).flatMap((when) => [when, ...(when.otherwise?.whens ?? [])]);
  for (const when of whens) {
    const onProduction =
      when.ref?.path.join('.') === 'APP_ENV' && (when.is?.allow ?? []).includes('production');
    if (!onProduction) continue;
    if (when.then?.flags?.presence === 'required') required = true;
    if ((when.then?.invalid ?? []).length > 0) refusesSandboxValue = true;
    if (when.then?.flags && 'default' in when.then.flags) production = when.then.flags.default;
    if (when.otherwise?.flags && 'default' in when.otherwise.flags) sandbox = when.otherwise.flags.default;
    productionOnly = true;
  }
  const alwaysRequired = d.flags?.presence === 'required';
  let defaults: string;
  if (alwaysRequired) defaults = 'none';
  else if (productionOnly) {
    const inSandbox =
      refusesSandboxValue || (/SECRET_KEY$/.test(name) && sandbox !== undefined)
        ? 'a public sandbox value'
        : shownValue(sandbox) || 'unset';
    const inProduction = required ? 'none' : shownValue(production) || 'unset';
    defaults =
      inSandbox === inProduction ? inSandbox : `${inSandbox} in sandbox; ${inProduction} in production`;
  } else if (/SECRET_KEY$/.test(name) && sandbox !== undefined) defaults = 'a public sandbox value';
  else defaults = shownValue(sandbox) || 'unset';
  let rule = alwaysRequired ? '**always**' : required ? '**in production**' : 'no';
  if (refusesSandboxValue) rule += ', the sandbox value refused there';
  return { name, defaults, production: rule, accepted: accepted(d) };
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The variables of a section without a meaning in `meanings` (the test requires none). */
export function variablesWithoutMeaning(): string[] {
  return sections.flatMap((section) =>
    variablesOf(section)
      .filter((name) => meaningOf(section, name) === undefined)
      .map((name) => `${section.title}/${name}`),
  );
}

const sharedDescribed = (sharedSchema.describe() as { keys: Record<string, Described> }).keys;

/** A section leaves a shared variable to "Every service" unless its schema gives it its own rule (a default of its own). */
function variablesOf(section: Section): string[] {
  const described = (section.schema.describe() as { keys: Record<string, Described> }).keys;
  return variableNames(section.schema).filter(
    (name) =>
      !(
        section.omitShared &&
        sharedVariables.has(name) &&
        isDeepStrictEqual(described[name], sharedDescribed[name])
      ),
  );
}

function meaningOf(section: Section, name: string): string | undefined {
  return meanings[`${section.title}/${name}`] ?? meanings[name];
}

const PREAMBLE = `# Configuration reference

<!-- Generated by \`pnpm config-reference\` (scripts/config-reference.ts) from the processes' config schemas: do not
edit by hand. infra/deploy/test/docs.unit.test.ts fails when this file is out of date. -->

Each process validates its own variables once, at start, with its joi schema (\`src/config.ts\`), and exits with status
78 naming every bad or missing variable at once, without echoing a value. **\`APP_ENV\` defaults to \`production\`**
(safe by default); \`npm start\`, the tests and compose's sandbox env file (\`infra/compose/sandbox.env\`) set
\`sandbox\`, where the defaults below work on this machine's local services. In production nothing falls back to a
local default: what is marked **required** must be set, and the sandbox's public values (development secrets, the
simulator's Pix key, the sandbox wallet) are refused even when set explicitly. Sandbox routes are off and webhook
targets must be public addresses.

One run checks them all: \`APP_ENV=production npm start\`, or on its own \`APP_ENV=production pnpm gateway config
check\`, checks the launcher's settings and every process's config in the environment the launcher would give each
one, and lists every bad or missing variable per process (exit status 78; 0 and \`configuration valid\` when every
process would start). The check is the launcher's (\`scripts/stack.ts --check-config\`).

In the tables, *Default* is what an unset variable means (sandbox and production differ where it says so),
*Required* whether it must be set (always, or in production only), and *Accepted* what the schema takes.
`;

const LAUNCHER = `## \`npm start\`, Docker Compose, the CLI and Node

These are read by the launcher (\`scripts/stack.ts\`), by \`docker-compose.yml\` or by the \`gateway\` CLI rather than by a
service's schema.

| Variable | Default | Meaning | Read by |
|---|---|---|---|
| \`PORT\`, \`DASHBOARD_PORT\`, \`PSP_SIMULATOR_PORT\`, \`SOLANA_LOCALNET_PORT\`, \`MAIL_CATCHER_SMTP_PORT\`, \`MAIL_CATCHER_WEB_PORT\`, \`CALLBACK_PORT\` | \`3000\`, \`3080\`, \`4010\`, \`8899\`, \`1025\`, \`1080\`, \`3101\` | the gateway's, the dashboard's, the sandbox stand-ins' and the PIX adapter's callback listener's ports, checked by the rules of the processes that read them, and checked free (with the metrics ports below, and none given twice), before anything starts | \`npm start\` |
| \`PAYMENT_METRICS_PORT\`, \`PIX_ADAPTER_METRICS_PORT\`, \`SOLANA_WATCHER_METRICS_PORT\`, \`CHECKOUT_METRICS_PORT\`, \`CUSTOMER_METRICS_PORT\`, \`WEBHOOK_DISPATCHER_METRICS_PORT\`, \`LEDGER_METRICS_PORT\` | \`9101\`–\`9107\` | each service's metrics port (a plain \`METRICS_PORT\` is refused there: seven services cannot share one) | \`npm start\` |
| \`DEMO_BUSINESS\`, \`DEMO_BUSINESS_FILE\` | \`true\`, \`.run/demo-business.json\` | make the sandbox demo business on first start; where its ids, API key and this start's gateway URL are kept (ignored by git; the walkthrough reads it) | \`npm start\` |
| \`LOG_FORMAT\` | \`pretty\` in sandbox when the output is a terminal; \`json\` otherwise | how \`npm start\` shows the processes' lines: \`pretty\` (pino-pretty) or \`json\` (as written); see [ADR 0015](adr/0015-pino-pretty-for-local-logs.md) | \`npm start\` |
| \`STACK_BUILD\` | \`source\` | what the processes run: \`source\` (the TypeScript through the tsx loader, no build step) or \`compiled\` (the files \`pnpm build\` writes, \`<package>/dist/main.js\`, run by node with no loader: what the images ship and the test stacks run); see [ADR 0045](adr/0045-compiled-services-by-esbuild.md) | \`npm start\` |
| \`STACK_REPLICAS\` | none | extra processes of back-end services, e.g. \`payment=2,pix-adapter=2,webhook-dispatcher=2\` | \`npm start\` |
| \`OTEL_BSP_*\`, \`OTEL_EXPORTER_OTLP_TIMEOUT\`, \`OTEL_EXPORTER_OTLP_COMPRESSION\` | the OpenTelemetry SDK's | read by the SDK itself (batching, timeout, gzip); \`npm start\` passes them to every process | all services |
| \`POSTGRES_PASSWORD\` | none: compose refuses to run without it (\`infra/compose/sandbox.env\`: \`postgres\`) | password of the bundled PostgreSQL, also put into every service's \`DATABASE_URL\` (the ledger's \`MIGRATION_DATABASE_URL\`); URL-safe | docker-compose.yml |
| \`LEDGER_DATABASE_PASSWORD\` | none: compose refuses to run without it (\`infra/compose/sandbox.env\`: \`ledger_runtime\`) | password of \`ledger_runtime\`, the role the ledger serves as (its \`DATABASE_URL\`): the sandbox creates the role with it, production creates it beforehand ([roles](operating.md#the-ledgers-database-roles)); URL-safe | docker-compose.yml |
| \`RABBITMQ_USER\`, \`RABBITMQ_PASSWORD\` | none: compose refuses to run without them (\`infra/compose/sandbox.env\`: \`guest\`) | the bundled RabbitMQ's administrator user, put into every service's \`AMQP_URL\` and the definitions step's login; URL-safe | docker-compose.yml |
| \`GATEWAY_URL\`, \`GATEWAY_API_KEY\`, \`ADMIN_TOKEN\`, \`GATEWAY_CLI_TLS_DIR\` | the URL in \`.run/demo-business.json\` when on this machine, else \`http://localhost:3000\`; none; the sandbox token for a local gateway; \`~/.config/gateway-cli/listen-tls\` | the CLI's gateway, merchant key, operator token and \`listen\`'s local certificates ([sdk-and-cli.md](sdk-and-cli.md)) | \`gateway\` CLI |
| \`NODE_EXTRA_CA_CERTS\` | unset (\`npm start\` in the sandbox adds \`gateway listen\`'s CA for the dispatcher) | Node's extra trusted CAs: a webhook endpoint's private CA | all (Node) |
`;

/** The whole reference, as docs/configuration.md holds it. */
export function configurationReference(): string {
  const parts = [PREAMBLE];
  for (const section of sections) {
    const described = (section.schema.describe() as { keys: Record<string, Described> }).keys;
    const lines = [
      `## ${section.title}`,
      '',
      `Schema: ${section.source}.${section.intro ? ` ${section.intro}` : ''}`,
      '',
    ];
    const names = variablesOf(section);
    if (names.length > 0) {
      lines.push('| Variable | Default | Required | Accepted | Meaning |', '|---|---|---|---|---|');
      for (const name of names) {
        const r = row(name, described[name]!);
        const meaning = meaningOf(section, name) ?? '';
        lines.push(
          `| \`${r.name}\` | ${cell(r.defaults)} | ${cell(r.production)} | ${cell(r.accepted)} | ${cell(meaning)} |`,
        );
      }
      lines.push('');
    }
    parts.push(lines.join('\n'));
  }
  parts.push(LAUNCHER);
  return parts.join('\n');
}

/** Variables with a meaning here that no schema reads any more (their lines would describe nothing). */
export function meaningsOfNoVariable(reference = configurationReference()): string[] {
  return Object.keys(meanings).filter((key) => !reference.includes(`| \`${key.split('/').pop()!}\` |`));
}

if (require.main === module) {
  const reference = configurationReference();
  if (process.argv.includes('--check')) {
    // For the docs test, which runs this as a process (a test reaches the root's scripts only that way): what is wrong.
    console.log(
      JSON.stringify({
        upToDate: readFileSync(CONFIGURATION_REFERENCE, 'utf8') === reference,
        withoutMeaning: variablesWithoutMeaning(),
        meaningsOfNoVariable: meaningsOfNoVariable(reference),
      }),
    );
  } else {
    writeFileSync(CONFIGURATION_REFERENCE, reference);
    console.log(`wrote ${CONFIGURATION_REFERENCE}`);
  }
}
