#if canImport(Glibc)
import Glibc
#endif

/// The number of malloc arenas a node process lets glibc create.
///
/// glibc gives threads that allocate at the same moment arenas of their own, up to eight per core,
/// and an arena keeps the memory freed into it for its own threads. A node's core loop, group
/// commit, event loops and command threads all allocate, so a busy node ended up holding freed
/// heap in many arenas: about 306 bytes resident per op held in the 8-node load against 216 with
/// two arenas (BENCHMARKS.md, "memory per op"). Two arenas keep two threads from contending on one
/// lock, which is all a node on a small machine needs.
package enum MallocArenas {
    /// The arena limit a node sets at start.
    package static let nodeLimit: Int32 = 2

    /// Limits the arenas of this process to `count` (glibc's `mallopt(M_ARENA_MAX, count)`), unless
    /// the environment already sets `MALLOC_ARENA_MAX`. Call it before other threads exist: arenas
    /// created earlier stay. Does nothing on other C libraries.
    ///
    /// - Returns: Whether the limit was set.
    @discardableResult
    package static func limit(to count: Int32 = nodeLimit) -> Bool {
        #if canImport(Glibc)
        guard getenv("MALLOC_ARENA_MAX") == nil else { return false }
        // `mallopt` is declared in malloc.h, which the Glibc module does not import.
        guard let symbol = dlsym(nil, "mallopt") else { return false }
        let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        let arenaMaximum: Int32 = -8 // M_ARENA_MAX
        return mallopt(arenaMaximum, count) == 1
        #else
        return false
        #endif
    }

    /// Hands the free memory of every arena back to the system (glibc's `malloc_trim(0)`: free
    /// pages in the middle of a heap too, not only at its top). A drag of 1,000 items of 100 KiB
    /// left its chunk buffers freed but resident, scattered between live allocations (44 MiB
    /// resident after, 29 before; `gallery-bench syncthing`, BENCHMARKS.md), which no threshold of
    /// glibc returns by itself. Does nothing on other C libraries.
    @Sendable
    package static func releaseFreed() {
        #if canImport(Glibc)
        // `malloc_trim` is declared in malloc.h, which the Glibc module does not import.
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)(0)
        #endif
    }
}
