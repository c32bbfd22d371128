import { centavosToBrl } from '../src/money';

describe('money at the HTTP/JSON edge', () => {
  test.each([
    [12345, 123.45],
    [100, 1],
    [1, 0.01],
    [0, 0],
    [4010, 40.1],
    [1999, 19.99],
  ])('%i centavos are %d BRL', (centavos, brl) => {
    expect(centavosToBrl(centavos)).toBe(brl);
  });
});
