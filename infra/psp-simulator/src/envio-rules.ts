/**
 * Why a sent Pix ends NAO_REALIZADO, as Efí tells it in the send's callback (`gnExtras.erro`): the ISO 20022 reason
 * code of the rejection (pacs.002 `StatusReasonCode`, e.g. AC03), who refused it, and the reason in words.
 */
export interface EnvioFailure {
  codigo: string;
  origem: string;
  motivo: string;
}

export interface EnvioFailureRule {
  /** Only envios to this destination key (`favorecido.chave`)... */
  chave?: string;
  /** ...and/or of exactly this amount (`valor`, e.g. "13.00"). At least one of the two. */
  valor?: string;
  /** Default: AC03, "account of the receiving user nonexistent or invalid", refused by the receiving PSP. */
  failure?: Partial<EnvioFailure>;
  /** How many matching envios fail (default: every one). */
  count?: number;
}

/** The rejection Efí's documentation shows in its example of a send that failed. */
export const DEFAULT_ENVIO_FAILURE: EnvioFailure = {
  codigo: 'AC03',
  origem: 'PSP do usuário recebedor',
  motivo: 'Número da agência e/ou conta transacional do usuário recebedor inexistente ou inválido',
};

/**
 * Sandbox rules, armed by tests like the faults: the next envios matching a rule are accepted (201, the amount leaves
 * the balance) and then rejected by the receiving side, ending NAO_REALIZADO with the rule's reason (the amount comes
 * back). The outcome is decided when the envio is asked for and kept in the books, so a restart settles it the same.
 */
export class EnvioRules {
  private readonly rules: Array<{ rule: EnvioFailureRule; left: number }> = [];

  fail(rule: EnvioFailureRule): void {
    if (rule.chave === undefined && rule.valor === undefined)
      throw new Error('an envio failure rule names a destination key, an amount or both');
    this.rules.push({ rule: { ...rule }, left: rule.count ?? Number.POSITIVE_INFINITY });
  }

  clear(): void {
    this.rules.length = 0;
  }

  /**
   * The failure planned for an envio to `chave` of `valor`, if a rule matches, counting it; `release` gives the count
   * back. Claimed only once the envio is being recorded (a refused or replayed one uses up no rule), and released if it
   * is not recorded after all.
   */
  claim(
    chave: string | undefined,
    valor: string,
  ): { failure: EnvioFailure; release: () => void } | undefined {
    const entry = this.rules.find(
      ({ rule }) =>
        (rule.chave === undefined || rule.chave === chave) &&
        (rule.valor === undefined || rule.valor === valor),
    );
    if (entry === undefined) return undefined;
    entry.left -= 1;
    if (entry.left <= 0) this.rules.splice(this.rules.indexOf(entry), 1);
    return {
      failure: { ...DEFAULT_ENVIO_FAILURE, ...entry.rule.failure },
      release: () => {
        entry.left += 1;
        if (!this.rules.includes(entry)) this.rules.unshift(entry);
      },
    };
  }
}
