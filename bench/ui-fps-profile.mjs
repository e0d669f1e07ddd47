// A synthetic .cpuprofile with N samples (100 µs apart) for bench/ui-fps.sh: a call tree of a
// few thousand functions up to 40 deep, walked so that neighbouring samples share most of their
// stack (as real programs do), giving millions of reconstructed calls.
const N = +(process.argv[2] || 1200000);
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296);
const nodes = [{ id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, children: [] }];
const kids = new Map();
function child(parent, fn) {
  const key = parent * 100000 + fn;
  let id = kids.get(key);
  if (id) return id;
  id = nodes.length + 1;
  nodes.push({ id, callFrame: { functionName: `fn${fn}`, scriptId: String(1 + (fn % 7)), url: `file:///app/src/module${fn % 7}.js`, lineNumber: fn * 3, columnNumber: 4 }, children: [] });
  nodes[parent - 1].children.push(id);
  kids.set(key, id);
  return id;
}
const samples = new Array(N), deltas = new Array(N);
let stack = [];
for (let i = 0; i < N; i++) {
  // A random walk over stacks: pop a few frames (now and then many), push a few.
  if (rand() < 0.4) stack.length = Math.max(0, stack.length - Math.floor(-Math.log(1 - rand()) * 4));
  for (let k = Math.floor(rand() * 4); k > 0 && stack.length < 40; k--) stack.push(Math.floor(rand() * (stack.length < 3 ? 5 : 3000)));
  let id = 1;
  for (const fn of stack) id = child(id, fn);
  samples[i] = id;
  deltas[i] = 100;
}
process.stdout.write(JSON.stringify({ nodes, startTime: 0, endTime: N * 100, samples, timeDeltas: deltas }));
