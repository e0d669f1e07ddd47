// Bundles fixtures/sourcemap/src/main.js with esbuild for the source-map tests:
//   node bundle.mjs OUTFILE external|inline|none-comment|lines
// `external`: OUTFILE.map beside it, named by a sourceMappingURL comment; `inline`: the map in a
// data: URL; `none-comment`: OUTFILE.map written but no comment (found only with --sourcemap);
// `lines`: as `external` but not minified, so that each generated line maps to an original line
// (the per-line tests: V8 counts line ticks by generated line).
import * as esbuild from 'esbuild';
import { fileURLToPath } from 'node:url';

const [outfile, mode] = process.argv.slice(2);
const entry = fileURLToPath(new URL('../../../../fixtures/sourcemap/src/main.js', import.meta.url));
await esbuild.build({
  entryPoints: [entry],
  bundle: true,
  minify: mode !== 'lines',
  platform: 'node',
  format: 'cjs',
  outfile,
  sourcemap: { external: 'linked', inline: 'inline', 'none-comment': 'external', lines: 'linked' }[mode],
  logLevel: 'error',
});
