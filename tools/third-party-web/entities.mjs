// Writes third-party-web's entity database (the npm package DevTools' trace engine bundles) as
// the compact table jsprof_pageload embeds: one entity per line, `name<TAB>domain domain …`, in
// the database's order. Usage (from the repo root, after tools/oracle/build.sh target/oracle):
//   node tools/third-party-web/entities.mjs target/oracle/node_modules/third-party-web \
//     > crates/jsprof_pageload/data/third-party-web-entities.tsv
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const entities = JSON.parse(readFileSync(join(dir, 'dist/entities.json'), 'utf8'));
const lines = [`# third-party-web ${pkg.version} (MIT, Patrick Hulce): dist/entities.json, names and domains`];
for (const e of entities) {
  for (const s of [e.name, ...e.domains]) if (/[\t\n]/.test(s) || (s !== e.name && / /.test(s))) throw new Error(`unexpected character in ${JSON.stringify(s)}`);
  lines.push(`${e.name}\t${e.domains.join(' ')}`);
}
process.stdout.write(lines.join('\n') + '\n');
