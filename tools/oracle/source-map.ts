// DevTools' own source maps (SDK.SourceMap from chrome-devtools-frontend), bundled for
// insights-oracle.mjs: it hands the trace engine a resolver that builds these as the
// Performance panel's does, so that the engine's script insights (DuplicatedJavaScript) see the
// scripts' source maps.
//   node build.mjs source-map.ts source-map.mjs
import * as Common from 'DEVTOOLS/core/common/common.js';
import * as SDK from 'DEVTOOLS/core/sdk/sdk.js';

export const parseSourceMap = SDK.SourceMap.parseSourceMap;

export function makeSourceMap(compiledUrl: string, sourceMapUrl: string, payload: unknown) {
  // deno-lint-ignore no-explicit-any
  return new SDK.SourceMap.SourceMap(compiledUrl as any, sourceMapUrl as any, payload as any, Common.Console.Console.instance());
}
