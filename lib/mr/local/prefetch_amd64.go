package local

// prefetch asks the CPU to bring the cache line holding *p into its caches
// without waiting for it (PREFETCHT0): the spill writer's reads of records
// in key order, scattered over the sort buffer, then overlap.
//
//go:noescape
func prefetch(p *byte)
