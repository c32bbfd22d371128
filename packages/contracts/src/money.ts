/**
 * Integer centavos to the BRL number the HTTP/JSON edge shows (12345 -> 123.45). Money is integer centavos everywhere
 * else: this is the one place it becomes a float, and nothing converts back.
 */
export function centavosToBrl(centavos: number): number {
  // Integer centavos / 100 is the nearest double to the BRL amount: the edge's only float.
  return centavos / 100;
}
