import { readFileSync } from 'node:fs';
import { SDK_ROUTES_FILE, renderSdkRoutes } from '../../../scripts/generate-sdk-routes';
import { SDK_TYPES_FILE, renderSdkTypes } from '../../../scripts/generate-sdk-types';

describe("the SDK's generated files (run `pnpm generate:sdk` after changing an operation)", () => {
  test('the route table is the one generated from the operation table', () => {
    expect(readFileSync(SDK_ROUTES_FILE, 'utf8')).toEqual(renderSdkRoutes());
  });

  test('the types are the ones generated from the JSON Schema of the operation table', () => {
    expect(readFileSync(SDK_TYPES_FILE, 'utf8')).toEqual(renderSdkTypes());
  });
});
