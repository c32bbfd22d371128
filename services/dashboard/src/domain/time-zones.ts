/** The zone a business's dates are shown in until someone changes it. */
export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

/** The IANA zones this runtime knows (Intl's list), in order: the only ones a business may pick. */
export function timeZoneChoices(): readonly string[] {
  return Intl.supportedValuesOf('timeZone');
}

/** Whether `zone` is one of the IANA zones a business may pick (`UTC` included), as Intl names it. */
export function isTimeZoneChoice(zone: string): boolean {
  if (zone === 'UTC') return true;
  if (!timeZoneChoices().includes(zone)) return false;
  try {
    return new Intl.DateTimeFormat('pt-BR', { timeZone: zone }).resolvedOptions().timeZone.length > 0;
  } catch {
    return false;
  }
}
