import { SANDBOX_PSP_CLIENT } from '@gateway/config';

/*
 * The PSP simulator as the outside world uses it in tests, under its sandbox credentials: a payer's bank paying a cob,
 * the PSP's console reading one or dropping the callbacks, apart from the adapter under test.
 */

/** An access token of the PSP simulator's sandbox client. */
export async function pspSandboxToken(pspUrl: string): Promise<string> {
  const basic = Buffer.from(`${SANDBOX_PSP_CLIENT.id}:${SANDBOX_PSP_CLIENT.secret}`).toString('base64');
  const tokenResponse = await fetch(`${pspUrl}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
  return token;
}

/**
 * Pays a cob at the PSP simulator directly, as a payer's bank would (sandbox route, outside the gateway). `payer`
 * says who the PSP reports paid (`pagador`, `null` for nobody; the simulator's sandbox payer when absent) and what
 * they typed (`infoPagador`).
 */
export async function payAtPsp(
  pspUrl: string,
  txid: string,
  valor?: string,
  payer: { pagador?: unknown; infoPagador?: string } = {},
): Promise<Response> {
  return fetch(`${pspUrl}/v2/cob/pagar/${txid}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await pspSandboxToken(pspUrl)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...(valor === undefined ? {} : { valor }), ...payer }),
  });
}

/** The cob as the PSP holds it (API Pix `GET /cob/{txid}`). */
export async function cobAtPsp(pspUrl: string, txid: string): Promise<{ status?: string }> {
  const response = await fetch(`${pspUrl}/v2/cob/${txid}`, {
    headers: { authorization: `Bearer ${await pspSandboxToken(pspUrl)}` },
  });
  return (await response.json()) as { status?: string };
}

/**
 * Unregisters the key's webhook at the PSP, so PIX reach the adapter only through its expiry re-check (a lost
 * callback); answers what registers it again.
 */
export async function withoutPspCallbacks(pspUrl: string, pixKey: string): Promise<() => Promise<void>> {
  const url = `${pspUrl}/v2/webhook/${pixKey}`;
  const headers = {
    authorization: `Bearer ${await pspSandboxToken(pspUrl)}`,
    'content-type': 'application/json',
  };
  const { webhookUrl } = (await (await fetch(url, { headers })).json()) as { webhookUrl: string };
  const removed = await fetch(url, { method: 'DELETE', headers });
  if (removed.status !== 204) throw new Error(`webhook not removed: ${removed.status}`);
  return async () => {
    const restored = await fetch(url, { method: 'PUT', headers, body: JSON.stringify({ webhookUrl }) });
    if (!restored.ok) throw new Error(`webhook not restored: ${restored.status}`);
  };
}

/**
 * Arms the PSP simulator's failure rule (sandbox only, not Efí: `POST /v2/envio/falhar`): the next send to `chave`
 * and/or of `valor` ends `NAO_REALIZADO` with `motivo`, told in the callback.
 */
export async function failNextEnvioAtPsp(
  pspUrl: string,
  rule: { chave?: string; valor?: string; motivo?: string; quantidade?: number },
): Promise<void> {
  const response = await fetch(`${pspUrl}/v2/envio/falhar`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await pspSandboxToken(pspUrl)}`, 'content-type': 'application/json' },
    body: JSON.stringify(rule),
  });
  if (response.status !== 201)
    throw new Error(`the failure rule was not armed: ${response.status} ${await response.text()}`);
}

/**
 * The PSP takes a tariff of `valor` from the account (sandbox only, not Efí: `POST /v2/tarifa`), as a bank charges for
 * Pix: the balance is lower, and no Pix list shows it.
 */
export async function chargeTariffAtPsp(pspUrl: string, valor: string, descricao?: string): Promise<void> {
  const response = await fetch(`${pspUrl}/v2/tarifa`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await pspSandboxToken(pspUrl)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ valor, ...(descricao === undefined ? {} : { descricao }) }),
  });
  if (response.status !== 201)
    throw new Error(`the tariff was not taken: ${response.status} ${await response.text()}`);
}

/**
 * The PSP simulator's date (`GET /v2/sandbox/relogio`, `hoje`: its today in Brasília, `YYYY-MM-DD`): due dates are
 * about its days, and a test moves it forward to pay a charge with a due date late.
 */
export async function pspToday(pspUrl: string): Promise<string> {
  const response = await fetch(`${pspUrl}/v2/sandbox/relogio`, {
    headers: { authorization: `Bearer ${await pspSandboxToken(pspUrl)}` },
  });
  return ((await response.json()) as { hoje: string }).hoje;
}

/** A sandbox POST to the PSP simulator under its sandbox credentials; throws `failure` when not answered 2xx. */
async function postToPspSandbox(
  pspUrl: string,
  path: string,
  body: unknown,
  failure: string,
): Promise<unknown> {
  const response = await fetch(`${pspUrl}/v2${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await pspSandboxToken(pspUrl)}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${failure}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Moves the PSP simulator's clock forward by `dias` (never back); answers its new today. */
export async function advancePspClock(pspUrl: string, dias: number): Promise<string> {
  const moved = await postToPspSandbox(
    pspUrl,
    '/sandbox/relogio/avancar',
    { dias },
    'the clock did not move',
  );
  return (moved as { hoje: string }).hoje;
}

/**
 * Moves one Pix Automático recurrence's own clock (a test clock: the simulator's clock and every other charge stay
 * where they are) to the start of `ate` (`YYYY-MM-DD`, never back) in Brasília; answers once what fell due for it on
 * the way (its cycles sent, debited or failed, retries, expiry) was done and called back. Answers its new today.
 */
export async function advanceRecurrenceClock(pspUrl: string, idRec: string, ate: string): Promise<string> {
  const moved = await postToPspSandbox(
    pspUrl,
    `/sandbox/rec/${idRec}/relogio/avancar`,
    { ate },
    "the recurrence's clock did not move",
  );
  return (moved as { hoje: string }).hoje;
}

/**
 * Makes the next attempt of a Pix Automático recurrence's next cycle fail at the payer's bank (`codigo`, default
 * `AM02`, a lack of funds): its open cycle's, or the next one created.
 */
export async function failNextRecurrenceCycle(pspUrl: string, idRec: string, codigo?: string): Promise<void> {
  await postToPspSandbox(
    pspUrl,
    `/sandbox/rec/${idRec}/falhar-proxima`,
    codigo === undefined ? {} : { codigo },
    "the recurrence's next cycle was not marked to fail",
  );
}

/**
 * Pays a cobv at the PSP simulator directly, as a payer's bank would: what is due on the simulator's today (sandbox
 * route `POST /v2/cobv/pagar/{txid}`). The answer says whether it was taken (400 past the payable window).
 */
export async function payDueChargeAtPsp(pspUrl: string, txid: string): Promise<Response> {
  return fetch(`${pspUrl}/v2/cobv/pagar/${txid}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await pspSandboxToken(pspUrl)}`, 'content-type': 'application/json' },
    body: '{}',
  });
}

/** A cobv as the PSP answers it (API Pix `CobVCompleta`), the fields tests look at named. */
export interface CobvAtPsp {
  status?: string;
  calendario?: { criacao: string; dataDeVencimento: string; validadeAposVencimento: number };
  devedor?: Record<string, string>;
  valor?: Record<string, unknown>;
  pix?: Array<Record<string, unknown>>;
  [field: string]: unknown;
}

/** The cobv as the PSP holds it (API Pix `GET /cobv/{txid}`). */
export async function cobvAtPsp(pspUrl: string, txid: string): Promise<CobvAtPsp> {
  const response = await fetch(`${pspUrl}/v2/cobv/${txid}`, {
    headers: { authorization: `Bearer ${await pspSandboxToken(pspUrl)}` },
  });
  return (await response.json()) as CobvAtPsp;
}

/** `n` days after the date `YYYY-MM-DD`. */
export function daysAfter(date: string, n: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}
