/** Pays a cob at the PSP simulator directly, as a payer's bank would (sandbox route, outside the gateway). */
export async function payAtPsp(pspUrl: string, txid: string, valor?: string): Promise<Response> {
  const basic = Buffer.from('sandbox-client:sandbox-secret').toString('base64');
  const tokenResponse = await fetch(`${pspUrl}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
  return fetch(`${pspUrl}/v2/cob/pagar/${txid}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(valor === undefined ? {} : { valor }),
  });
}
