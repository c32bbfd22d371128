import { isPublicKey } from './base58';
import { formatTokenAmount, parseTokenAmount } from './token-amount';

export interface TransferRequest {
  recipient: string;
  /** Base units of the token. */
  amount: bigint;
  decimals: number;
  splToken: string;
  reference: string;
  label: string;
  message: string;
  memo?: string;
}

export interface ParsedTransferRequest {
  recipient: string;
  amount?: bigint;
  splToken?: string;
  references: string[];
  label?: string;
  message?: string;
  memo?: string;
}

export class InvalidTransferRequestError extends Error {}

/** encodeURIComponent, so spaces become %20 (wallets do not all read `+` as a space). */
function param(name: string, value: string): string {
  return `${name}=${encodeURIComponent(value)}`;
}

/** A Solana Pay SPL transfer request URL (https://docs.solanapay.com/spec). */
export function buildTransferRequestUrl(request: TransferRequest): string {
  for (const [field, key] of [
    ['recipient', request.recipient],
    ['splToken', request.splToken],
    ['reference', request.reference],
  ] as const) {
    if (!isPublicKey(key)) throw new InvalidTransferRequestError(`${field} is not a base58 public key`);
  }
  const params = [
    param('amount', formatTokenAmount(request.amount, request.decimals)),
    param('spl-token', request.splToken),
    param('reference', request.reference),
    param('label', request.label),
    param('message', request.message),
    ...(request.memo === undefined ? [] : [param('memo', request.memo)]),
  ];
  return `solana:${request.recipient}?${params.join('&')}`;
}

/** Parses a transfer request; `decimals` is the token's, needed to turn the amount into base units. */
export function parseTransferRequestUrl(url: string, decimals: number): ParsedTransferRequest {
  const match = /^solana:([^?]+)(?:\?(.*))?$/.exec(url);
  if (!match) throw new InvalidTransferRequestError('not a solana: URL');
  const recipient = decodeURIComponent(match[1]!);
  if (!isPublicKey(recipient)) throw new InvalidTransferRequestError('recipient is not a base58 public key');
  const result: ParsedTransferRequest = { recipient, references: [] };
  for (const pair of (match[2] ?? '').split('&').filter(Boolean)) {
    const [name = '', raw = ''] = pair.split('=', 2);
    const value = decodeURIComponent(raw);
    if (name === 'reference') {
      if (!isPublicKey(value)) throw new InvalidTransferRequestError('reference is not a base58 public key');
      result.references.push(value);
    } else if (
      name === 'amount' ||
      name === 'spl-token' ||
      name === 'label' ||
      name === 'message' ||
      name === 'memo'
    ) {
      assignSingle(result, name, value, decimals);
    }
  }
  return result;
}

function assignSingle(result: ParsedTransferRequest, name: string, value: string, decimals: number): void {
  const field = name === 'spl-token' ? 'splToken' : (name as 'amount' | 'label' | 'message' | 'memo');
  if (result[field] !== undefined) throw new InvalidTransferRequestError(`${name} given more than once`);
  if (field === 'amount') {
    try {
      result.amount = parseTokenAmount(value, decimals);
    } catch (err) {
      throw new InvalidTransferRequestError((err as Error).message);
    }
  } else if (field === 'splToken') {
    if (!isPublicKey(value)) throw new InvalidTransferRequestError('spl-token is not a base58 public key');
    result.splToken = value;
  } else {
    result[field] = value;
  }
}
