/**
 * Check digits of Brazilian taxpayer ids, as the Receita Federal computes them: a CPF's two mod-11 digits, and a
 * CNPJ's, alphanumeric CNPJs included (IN RFB 2.229/2024: the first twelve characters may be letters, each worth its
 * ASCII code minus 48; the two check digits stay digits). A CPF of one repeated digit passes the arithmetic but is
 * not issued, and is refused.
 */
export function validCpf(cpf: string): boolean {
  if (!/^\d{11}$/.test(cpf) || /^(\d)\1{10}$/.test(cpf)) return false;
  const digits = [...cpf].map(Number);
  const check = (length: number) => {
    const sum = digits.slice(0, length).reduce((total, digit, i) => total + digit * (length + 1 - i), 0);
    const rest = (sum * 10) % 11;
    return rest === 10 ? 0 : rest;
  };
  return check(9) === digits[9] && check(10) === digits[10];
}

export function validCnpj(cnpj: string): boolean {
  if (!/^[0-9A-Z]{12}\d{2}$/.test(cnpj) || /^(\d)\1{13}$/.test(cnpj)) return false;
  const values = [...cnpj].map((char) => char.charCodeAt(0) - 48);
  const check = (length: number) => {
    const sum = values
      .slice(0, length)
      .reduce((total, value, i) => total + value * (((length - 1 - i) % 8) + 2), 0);
    const rest = sum % 11;
    return rest < 2 ? 0 : 11 - rest;
  };
  return check(12) === values[12] && check(13) === values[13];
}
