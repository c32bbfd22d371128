/**
 * Local launcher: runs every service of the stack as its own process in this terminal, with prefixed logs. In sandbox
 * it also runs the PSP simulator and the local Solana chain. Ctrl-C stops everything gracefully.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..');
const sandbox = (process.env.APP_ENV ?? 'sandbox') === 'sandbox';
const port = Number(process.env.PORT ?? 3000);
const gatewayUrl = `http://127.0.0.1:${port}`;
const adminToken = process.env.ADMIN_TOKEN ?? 'dev-admin-token';

interface ProcessSpec {
  name: string;
  entry: string;
  sandboxOnly?: boolean;
  /** Variables of this process only (the stand-ins read PORT too, so they get their own). */
  env?: Record<string, string>;
}

const processes: ProcessSpec[] = [
  {
    name: 'psp-simulator',
    entry: 'infra/psp-simulator/src/main.ts',
    sandboxOnly: true,
    env: { PORT: process.env.PSP_SIMULATOR_PORT ?? '4010' },
  },
  {
    name: 'solana-localnet',
    entry: 'infra/solana-localnet/src/main.ts',
    sandboxOnly: true,
    env: { PORT: process.env.SOLANA_LOCALNET_PORT ?? '8899' },
  },
  { name: 'payment', entry: 'services/payment/src/main.ts', env: { METRICS_PORT: '9101' } },
  { name: 'pix-adapter', entry: 'services/pix-adapter/src/main.ts', env: { METRICS_PORT: '9102' } },
  { name: 'solana-watcher', entry: 'services/solana-watcher/src/main.ts', env: { METRICS_PORT: '9103' } },
  { name: 'checkout', entry: 'services/checkout/src/main.ts', env: { METRICS_PORT: '9104' } },
  { name: 'customer', entry: 'services/customer/src/main.ts', env: { METRICS_PORT: '9105' } },
  {
    name: 'webhook-dispatcher',
    entry: 'services/webhook-dispatcher/src/main.ts',
    env: { METRICS_PORT: '9106' },
  },
  { name: 'api-gateway', entry: 'services/api-gateway/src/main.ts' },
];

const colors = [31, 32, 33, 34, 35, 36, 91, 92, 93, 94, 95, 96];
const width = Math.max(...processes.map((p) => p.name.length));
const children: ChildProcess[] = [];
let stopping = false;

function prefixLines(
  name: string,
  color: number,
  stream: NodeJS.ReadableStream,
  out: NodeJS.WritableStream,
): void {
  let buffered = '';
  stream.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) out.write(`\x1b[${color}m${name.padEnd(width)} |\x1b[0m ${line}\n`);
  });
}

function start(spec: ProcessSpec, index: number): void {
  const tsx = join(root, 'node_modules/.bin/tsx');
  const child = spawn(tsx, [join(root, spec.entry)], {
    cwd: root,
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const color = colors[index % colors.length]!;
  prefixLines(spec.name, color, child.stdout!, process.stdout);
  prefixLines(spec.name, color, child.stderr!, process.stderr);
  child.on('exit', (code, signal) => {
    if (stopping) return;
    console.error(`${spec.name} exited (${signal ?? code}); stopping the stack`);
    void stopAll(1);
  });
  children.push(child);
}

async function stopAll(exitCode: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve))),
    ),
  );
  process.exit(exitCode);
}

async function waitForHealthy(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(url)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${url} did not become ready in ${timeoutMs} ms`);
}

async function admin(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

interface DemoBusiness {
  business_id: string;
  api_key: string;
  product_id: string;
  checkout_url: string;
}

/** On first start, a demo sandbox business with fee rules, a product and a checkout, so the quick start works at once. */
async function ensureDemoBusiness(): Promise<DemoBusiness> {
  const file = join(root, '.run/demo-business.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as DemoBusiness;
    const stillThere = await fetch(`${gatewayUrl}/admin/v1/businesses/${saved.business_id}`, {
      headers: { authorization: `Bearer ${adminToken}` },
    }).then((r) => r.ok);
    if (stillThere) return saved;
  }
  const business = await admin('POST', '/admin/v1/businesses', { name: 'Loja Demo' });
  const id = business.business_id as string;
  await admin('PUT', `/admin/v1/businesses/${id}/fee-rules/pix`, { percent_bps: 99, fixed_centavos: 0 });
  await admin('PUT', `/admin/v1/businesses/${id}/fee-rules/crypto`, { percent_bps: 150, fixed_centavos: 0 });
  const product = await admin('POST', `/admin/v1/businesses/${id}/products`, {
    name: 'Camiseta Tupi',
    price: 7990,
    description: 'Camiseta de algodão orgânico',
  });
  const checkout = await fetch(`${gatewayUrl}/v1/checkouts`, {
    method: 'POST',
    headers: { 'x-api-key': business.api_key as string, 'content-type': 'application/json' },
    body: JSON.stringify({
      product_id: product.product_id,
      title: 'Camiseta Tupi',
      return_url: 'https://example.com/obrigado',
      cancel_url: 'https://example.com/carrinho',
    }),
  }).then((r) => r.json() as Promise<{ slug: string }>);
  const demo: DemoBusiness = {
    business_id: id,
    api_key: business.api_key as string,
    product_id: product.product_id as string,
    checkout_url: `${gatewayUrl}/c/${checkout.slug}`,
  };
  mkdirSync(join(root, '.run'), { recursive: true });
  writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}

async function main(): Promise<void> {
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));
  processes.filter((p) => sandbox || !p.sandboxOnly).forEach(start);
  await waitForHealthy(`${gatewayUrl}/readyz`, 120_000);
  const lines = [`gateway: ${gatewayUrl}  (GET /healthz, /readyz, /metrics)`];
  if (sandbox) {
    const demo = await ensureDemoBusiness();
    lines.push(
      `demo business: ${demo.business_id}`,
      `demo API key:  ${demo.api_key}`,
      `demo product:  ${demo.product_id}`,
      `demo checkout: ${demo.checkout_url}  (open it in a browser)`,
    );
  }
  console.log(`\n${'='.repeat(72)}\n${lines.join('\n')}\n${'='.repeat(72)}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  void stopAll(1);
});
