/**
 * SHIM (not from the port). report.tsx imports `modelDisplayName` from './client.ts'; the real
 * client.ts is the app's LLM/API client (model registry, network calls), which scoring does not
 * need. Only the one imported name is provided. The harness never calls it (it only uses
 * computeReportScores from report.tsx), but the import must resolve for the bundle.
 */
export function modelDisplayName(modelRefKey: string): string {
  return modelRefKey
}
