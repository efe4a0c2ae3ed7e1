package vectors

// For the benchmarks of package vectors_test, which measure semantic
// search over vectors stored here.
var (
	DenseStoreForBench = storeDense
	HeapInUse          = heapInUse
)

type DenseStub = denseStub
