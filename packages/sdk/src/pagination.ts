/** One page as fetched, with its items and the cursor of the page after it (none at the end). */
export interface FetchedPage<P, T> {
  page: P;
  items: readonly T[];
  next: string | undefined;
}

/**
 * A list call: `await` it for the first page as the gateway answers it, or `for await` over it for every item of every
 * page, each page fetched when the previous one is used up.
 */
export class PagedList<P, T> implements PromiseLike<P>, AsyncIterable<T> {
  private firstPage: Promise<FetchedPage<P, T>> | undefined;

  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<FetchedPage<P, T>>) {}

  then<A = P, B = never>(
    onFulfilled?: ((page: P) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    // Awaited twice, the list is still fetched once.
    this.firstPage ??= this.fetchPage(undefined);
    return this.firstPage.then((fetched) => fetched.page).then(onFulfilled, onRejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let cursor: string | undefined;
    do {
      const fetched = await this.fetchPage(cursor);
      yield* fetched.items;
      cursor = fetched.next;
    } while (cursor !== undefined);
  }
}
