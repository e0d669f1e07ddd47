// jsprof CPU benchmark workload: drives the TypeScript compiler (a large, real
// code base with deep and varied call stacks) for a fixed wall-clock duration.
//
//   node workload.js <path/to/node_modules/typescript> <seconds>
//
// Each round builds a fresh Program (so nothing is cached between rounds) over
// the package's own declaration files, type-checks it, emits declarations for
// a JS chunk, and pretty-prints/transpiles slices of the compiler's own source.
'use strict';
const path = require('path');
const fs = require('fs');

const tsDir = path.resolve(process.argv[2] || 'node_modules/typescript');
const seconds = Number(process.argv[3] || 40);
const ts = require(tsDir);
const lib = path.join(tsDir, 'lib');

const dts = path.join(lib, 'typescript.d.ts');
const jsSource = fs.readFileSync(path.join(lib, 'typescript.js'), 'utf8');
// Two ~40 KB slices of the compiler's own JS, cut at line boundaries (kept
// small and few: the emitter's deep recursion over big inputs otherwise fills
// the profile with hundreds of thousands of distinct stack nodes).
const slices = [];
for (let at = 0; at < jsSource.length && slices.length < 2; ) {
  let end = jsSource.indexOf('\n', at + 40_000);
  if (end < 0) end = jsSource.length;
  slices.push(jsSource.slice(at, end));
  at = end + 1;
}

function typeCheck() {
  const options = {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    strict: true,
    noEmit: true,
    types: [],
  };
  const program = ts.createProgram([dts], options);
  const diags = ts.getPreEmitDiagnostics(program);
  // Touch the checker more: resolve the type of every exported declaration.
  const checker = program.getTypeChecker();
  const sf = program.getSourceFile(dts);
  let n = 0;
  const visit = (node) => {
    if (ts.isIdentifier(node) && n++ % 3 === 0) {
      const sym = checker.getSymbolAtLocation(node);
      if (sym) checker.typeToString(checker.getTypeOfSymbolAtLocation(sym, node));
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return diags.length + n;
}

function transpileAndPrint(round) {
  const text = slices[round % slices.length];
  const out = ts.transpileModule(text, {
    compilerOptions: { target: ts.ScriptTarget.ES5, module: ts.ModuleKind.CommonJS, allowJs: true },
    fileName: `slice${round}.js`,
  });
  const sf = ts.createSourceFile(`p${round}.js`, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const printed = ts.createPrinter({ removeComments: true }).printFile(sf);
  return out.outputText.length + printed.length;
}

function declarations(round) {
  const text = slices[(round + 1) % slices.length];
  const host = ts.createCompilerHost({});
  const name = `/virtual/chunk${round}.js`;
  const orig = host.getSourceFile;
  host.getSourceFile = (f, lv, ...rest) =>
    f === name ? ts.createSourceFile(f, text, lv) : orig.call(host, f, lv, ...rest);
  const origExists = host.fileExists;
  host.fileExists = (f) => f === name || origExists.call(host, f);
  let out = 0;
  host.writeFile = (_f, data) => { out += data.length; };
  const program = ts.createProgram([name], {
    allowJs: true, checkJs: true, declaration: true, emitDeclarationOnly: true,
    target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], types: [],
  }, host);
  program.emit();
  return out + ts.getPreEmitDiagnostics(program).length;
}

const t0 = Date.now();
let round = 0, sink = 0;
while (Date.now() - t0 < seconds * 1000) {
  const t = Date.now();
  sink += typeCheck();
  sink += transpileAndPrint(round);
  sink += declarations(round);
  round++;
  if (process.env.JSPROF_BENCH_VERBOSE) console.error(`round ${round}: ${Date.now() - t} ms`);
}
console.error(`workload: ${round} rounds in ${((Date.now() - t0) / 1000).toFixed(1)} s (sink ${sink})`);
