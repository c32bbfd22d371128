import type { Cob } from '../../src/clients/psp/cob';

/** A cob as a PSP answers it (API Pix v2) without its own `pixCopiaECola`; a test states only what matters to it. */
export const aCob = (overrides: Partial<Cob> = {}): Cob => ({
  txid: 'abcdefghijklmnopqrstuvwxyz0123',
  revisao: 0,
  status: 'ATIVA',
  calendario: { criacao: '2025-01-01T12:00:00Z', expiracao: 3600 },
  loc: { id: 1, location: 'psp.example/v2/loc/1', tipoCob: 'cob' },
  valor: { original: '1.00' },
  chave: 'k',
  ...overrides,
});
