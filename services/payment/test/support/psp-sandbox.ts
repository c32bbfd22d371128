async function pspToken(pspUrl: string): Promise<string> {
  const basic = Buffer.from('sandbox-client:sandbox-secret').toString('base64');
  const tokenResponse = await fetch(`${pspUrl}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
  return token;
}

/** Pays a cob at the PSP simulator directly, as a payer's bank would (sandbox route, outside the gateway). */
export async function payAtPsp(pspUrl: string, txid: string, valor?: string): Promise<Response> {
  return fetch(`${pspUrl}/v2/cob/pagar/${txid}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await pspToken(pspUrl)}`, 'content-type': 'application/json' },
    body: JSON.stringify(valor === undefined ? {} : { valor }),
  });
}

/**
 * Unregisters the key's webhook at the PSP, so PIX reach the adapter only through its expiry re-check (a lost
 * callback); answers what registers it again.
 */
export async function withoutPspCallbacks(pspUrl: string, pixKey: string): Promise<() => Promise<void>> {
  const url = `${pspUrl}/v2/webhook/${pixKey}`;
  const headers = { authorization: `Bearer ${await pspToken(pspUrl)}`, 'content-type': 'application/json' };
  const { webhookUrl } = (await (await fetch(url, { headers })).json()) as { webhookUrl: string };
  const removed = await fetch(url, { method: 'DELETE', headers });
  if (removed.status !== 204) throw new Error(`webhook not removed: ${removed.status}`);
  return async () => {
    const restored = await fetch(url, { method: 'PUT', headers, body: JSON.stringify({ webhookUrl }) });
    if (!restored.ok) throw new Error(`webhook not restored: ${restored.status}`);
  };
}
