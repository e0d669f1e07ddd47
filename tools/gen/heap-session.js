// This Node process's own inspector, for the heap generators (node-heap.js, node-leak.js):
// one call as a promise, and a heap snapshot written whole to a file.
function post(session, method, params) {
  return new Promise((resolve, reject) => session.post(method, params || {}, (err, res) => err ? reject(err) : resolve(res)));
}

// Writes a heap snapshot to `file`; with `gc`, after a full collection, so that only what is
// retained is in it.
async function snapshot(session, file, {gc = false} = {}) {
  const chunks = [];
  const onChunk = (m) => chunks.push(m.params.chunk);
  session.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
  if (gc) await post(session, 'HeapProfiler.collectGarbage');
  await post(session, 'HeapProfiler.takeHeapSnapshot', {reportProgress: false});
  session.removeListener('HeapProfiler.addHeapSnapshotChunk', onChunk);
  require('fs').writeFileSync(file, chunks.join(''));
}

module.exports = {post, snapshot};
