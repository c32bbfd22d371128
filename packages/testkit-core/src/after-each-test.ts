/**
 * Closes what a test started (servers, clients) once it ends, for every test of the enclosing describe (or file):
 * answers the function a test hands each closer to; closers run together.
 */
export function closeAfterEachTest(): (close: () => Promise<unknown>) => void {
  const closers: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });
  return (close) => {
    closers.push(close);
  };
}
