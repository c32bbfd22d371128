import type { ChargeDebtor } from '@gateway/contracts';

/** CPF: 11 digits; anything else a debtor carries is a CNPJ (14 characters, digits or, since 2026, letters). */
const CPF_LENGTH = 11;

/** A payment's debtor as API Pix names it on a cob: `cpf` for a person, `cnpj` for a company, with `nome`. */
export function devedorOf(
  debtor: ChargeDebtor,
): { cpf: string; nome: string } | { cnpj: string; nome: string } {
  return debtor.document.length === CPF_LENGTH
    ? { cpf: debtor.document, nome: debtor.name }
    : { cnpj: debtor.document, nome: debtor.name };
}
