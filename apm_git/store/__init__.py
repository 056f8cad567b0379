"""The storage layer: the memory repository on disk, its state, lock, commits and caches."""
