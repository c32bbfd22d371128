import { DEFAULT_TIME_ZONE, isTimeZoneChoice, timeZoneChoices } from '../src/domain/time-zones';

describe("a business's time zone", () => {
  test('the default is São Paulo, one of the choices', () => {
    expect(DEFAULT_TIME_ZONE).toBe('America/Sao_Paulo');
    expect(timeZoneChoices()).toContain(DEFAULT_TIME_ZONE);
  });

  test.each(['America/Sao_Paulo', 'America/Manaus', 'America/Noronha', 'Europe/Lisbon', 'UTC'])(
    '%s may be picked',
    (zone) => {
      expect(isTimeZoneChoice(zone)).toBe(true);
    },
  );

  test.each(['', 'Brasil', 'america/sao_paulo', 'GMT-3', '+03:00', 'America/Sao_Paulo ', 'Mars/Olympus'])(
    '%j may not',
    (zone) => {
      expect(isTimeZoneChoice(zone)).toBe(false);
    },
  );
});
