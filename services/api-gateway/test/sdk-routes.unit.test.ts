import { readFileSync } from 'node:fs';
import { SDK_ROUTES_FILE, renderSdkRoutes } from '../../../scripts/generate-sdk-routes';

describe("the SDK's route table", () => {
  test('is the one generated from the operation table (run `pnpm generate:sdk` after changing an operation)', () => {
    expect(readFileSync(SDK_ROUTES_FILE, 'utf8')).toEqual(renderSdkRoutes());
  });
});
