import { startOfLocalDay } from '../src/domain/local-date';

describe('the instant a calendar day begins in the business time zone', () => {
  test('São Paulo is three hours behind UTC', () => {
    expect(startOfLocalDay('2026-11-29', 'America/Sao_Paulo')).toBe('2026-11-29T03:00:00.000Z');
  });

  test('"days" moves to a later day, across a month', () => {
    expect(startOfLocalDay('2026-11-30', 'America/Sao_Paulo', 1)).toBe('2026-12-01T03:00:00.000Z');
  });

  test('a zone ahead of UTC begins its day the evening before, in UTC', () => {
    expect(startOfLocalDay('2026-07-01', 'Asia/Tokyo')).toBe('2026-06-30T15:00:00.000Z');
  });

  test('a zone with summer time uses that day’s offset', () => {
    expect(startOfLocalDay('2026-07-01', 'Europe/Lisbon')).toBe('2026-06-30T23:00:00.000Z');
    expect(startOfLocalDay('2026-01-15', 'Europe/Lisbon')).toBe('2026-01-15T00:00:00.000Z');
  });

  test('what is not a real day is null', () => {
    for (const text of ['', '2026-02-30', '29/11/2026', '2026-13-01', '2026-1-1'])
      expect({ text, instant: startOfLocalDay(text, 'America/Sao_Paulo') }).toEqual({ text, instant: null });
  });
});
