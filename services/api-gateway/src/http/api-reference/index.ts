export {
  apiReferenceAssets,
  apiReferenceAssetNames,
  API_REFERENCE_CONTENT_SECURITY_POLICY,
  type ApiReferenceAssetName,
} from './assets';
export { renderApiReferencePage } from './page';
