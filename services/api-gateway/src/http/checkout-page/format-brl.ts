import { centavosToBrl, madeAtFirstUse } from '@gateway/contracts';

/** Made at first use: a formatter reads ICU's locale data, which then stays resident (ADR 0051). */
const brl = madeAtFirstUse(() => new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }));

/** `123456` -> `R$ 1.234,56`, with an ordinary space (Intl emits a no-break space) so text matches what people type. */
export function formatBrl(centavos: number): string {
  return brl()
    .format(centavosToBrl(centavos))
    .replace(/\u00a0/g, ' ');
}
