import { centavosToBrl } from '@gateway/contracts';

const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

/** `123456` -> `R$ 1.234,56`, with an ordinary space (Intl emits a no-break space) so text matches what people type. */
export function formatBrl(centavos: number): string {
  return BRL.format(centavosToBrl(centavos)).replace(/\u00a0/g, ' ');
}
