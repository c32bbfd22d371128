import { createTestDatabase, type TestDatabase } from '@gateway/testkit-core';

/**
 * A database for the PSP simulators of one test file to keep their books in, created before its tests and dropped
 * after them (after every simulator is closed): answers its URL, readable once the file's tests run.
 */
export function pspBooksForThisFile(): () => string {
  let books: TestDatabase | undefined;
  beforeAll(async () => {
    books = await createTestDatabase();
  });
  afterAll(async () => {
    await books?.drop();
  });
  return () => {
    if (books === undefined) throw new Error('the books are created before the tests run');
    return books.url;
  };
}
