import { infractionOf, validateInfracoesPage } from '../src/clients/psp/infracao';

const E2E = 'E12345678202611301200abcdefghijk';

describe("Efí's infractions as the adapter reads them", () => {
  it("finds the Pix's infraction still open, else one it defended; none of another Pix or ended", () => {
    const of = (status: string, endToEndId = E2E, idInfracao = status) => ({
      idInfracao,
      endToEndId,
      status,
    });
    expect(infractionOf([of('ACEITA'), of('ABERTA'), of('EM_DEFESA')], E2E)).toEqual(of('ABERTA'));
    expect(infractionOf([of('REJEITADA'), of('EM_DEFESA')], E2E)).toEqual(of('EM_DEFESA'));
    expect(infractionOf([of('ABERTA', 'E'.padEnd(32, '0'))], E2E)).toBeUndefined();
    expect(infractionOf([of('ACEITA'), of('REJEITADA')], E2E)).toBeUndefined();
  });

  it('checks a page before relying on it: numeric ids read as text, a page without paging is unusable', () => {
    const page = validateInfracoesPage({
      parametros: { paginacao: { paginaAtual: 0, quantidadeDePaginas: 1 } },
      infracoes: [{ idInfracao: 42, endToEndId: E2E, status: 'ABERTA', valor: '1.00' }],
    });
    expect(page).toEqual({
      value: { items: [{ idInfracao: '42', endToEndId: E2E, status: 'ABERTA' }], pages: 1 },
    });
    expect(validateInfracoesPage({ infracoes: [] })).toHaveProperty('reason');
    expect(
      validateInfracoesPage({ parametros: { paginacao: { paginaAtual: 0, quantidadeDePaginas: 0 } } }),
    ).toEqual({
      value: { items: [], pages: 0 },
    });
  });
});
