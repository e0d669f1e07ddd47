//! Heap snapshots: a streaming reader for `.heapsnapshot`/`.heaptimeline` and DevTools-exact analyses.
