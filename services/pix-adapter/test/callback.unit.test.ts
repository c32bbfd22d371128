import { parsePspCallback } from '../src/clients/psp/callback';

function pixItem(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    endToEndId: 'E12345678202501011200abcdefghijk',
    txid: 'a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6',
    valor: '110.00',
    horario: '2025-01-01T12:00:00.000Z',
    ...overrides,
  };
}

describe('parsePspCallback', () => {
  it('accepts the API Pix envelope and converts each amount to centavos', () => {
    const result = parsePspCallback({ pix: [pixItem(), pixItem({ valor: '0.05' })] });
    expect(result.rejected).toEqual([]);
    expect(result.items.map((item) => item.valorCentavos)).toEqual([11000, 5]);
    expect(result.items[0]).toMatchObject({
      endToEndId: 'E12345678202501011200abcdefghijk',
      valor: '110.00',
    });
  });

  it('leaves the Pix the account sent (tipo and gnExtras.idEnvio) to the sends parser, neither item nor rejected', () => {
    const sent = {
      endToEndId: 'E12345678202501011200abcdefghijk',
      chave: 'k',
      tipo: 'SOLICITACAO',
      status: 'REALIZADO',
      valor: '1.00',
      horario: '2025-01-01T12:00:00.000Z',
      gnExtras: { idEnvio: 'abc123' },
    };
    const result = parsePspCallback({ pix: [sent, pixItem()] });
    expect(result.items).toHaveLength(1);
    expect(result.items[0]).toMatchObject({ txid: pixItem().txid });
    expect(result.rejected).toEqual([]);
  });

  it('accepts a bare array, as some PSPs send', () => {
    const result = parsePspCallback([pixItem()]);
    expect(result.items).toHaveLength(1);
    expect(result.rejected).toEqual([]);
  });

  it('drops fields it does not know instead of failing on them', () => {
    const result = parsePspCallback({ pix: [pixItem({ infoPagador: 'oi', devolucoes: [], chave: 'k' })] });
    expect(result.items[0]).not.toHaveProperty('infoPagador');
    expect(result.items[0]).not.toHaveProperty('chave');
  });

  it('reads the devolucoes a PSP reports with a Pix (their nature too: MED ones), and an item without any has none', () => {
    const devolucao = {
      id: 'ref0123456789abcdefghij',
      rtrId: 'D12345678202501021200abcdefghijk',
      valor: '10.00',
      natureza: 'ORIGINAL',
      horario: { solicitacao: '2025-01-02T12:00:00.000Z', liquidacao: '2025-01-02T12:00:05.000Z' },
      status: 'DEVOLVIDO',
    };
    const result = parsePspCallback({ pix: [pixItem({ devolucoes: [devolucao] }), pixItem()] });
    expect(result.rejected).toEqual([]);
    expect(result.items[0]!.devolucoes).toEqual([
      {
        id: devolucao.id,
        rtrId: devolucao.rtrId,
        valor: '10.00',
        natureza: 'ORIGINAL',
        horario: devolucao.horario,
        status: 'DEVOLVIDO',
      },
    ]);
    expect(result.items[1]!.devolucoes).toEqual([]);
    const med = {
      ...devolucao,
      natureza: 'MED_FRAUDE',
      status: 'EM_PROCESSAMENTO',
      horario: { solicitacao: '2025-01-03T12:00:00.000Z' },
    };
    expect(parsePspCallback({ pix: [pixItem({ devolucoes: [med] })] }).items[0]!.devolucoes).toEqual([med]);
    expect(
      parsePspCallback({ pix: [pixItem({ devolucoes: [{ ...devolucao, status: 'X' }] })] }).rejected,
    ).toHaveLength(1);
  });

  it('rejects only the malformed items, naming their position and reason', () => {
    const result = parsePspCallback({
      pix: [
        pixItem(),
        pixItem({ valor: '10' }),
        pixItem({ endToEndId: 'short' }),
        pixItem({ txid: undefined }),
      ],
    });
    expect(result.items).toHaveLength(1);
    expect(result.rejected.map((r) => r.index)).toEqual([1, 2, 3]);
    expect(result.rejected[0]!.reason).toContain('valor');
    expect(result.rejected[1]!.reason).toContain('endToEndId');
    expect(result.rejected[2]!.reason).toContain('txid');
  });

  it('rejects an item whose horario is not an ISO date', () => {
    const result = parsePspCallback({ pix: [pixItem({ horario: 'yesterday' })] });
    expect(result.items).toEqual([]);
    expect(result.rejected[0]!.reason).toContain('horario');
  });

  it.each([null, 'pix', 42, {}, { pix: 'nope' }])('rejects the whole body %p', (body) => {
    const result = parsePspCallback(body);
    expect(result.items).toEqual([]);
    expect(result.rejected).toEqual([{ index: null, reason: expect.stringContaining('neither') }]);
  });
});
