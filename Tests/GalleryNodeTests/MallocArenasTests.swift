import GalleryHost
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The arena cap a node sets at start (`gallery serve`) reaches glibc.
@Suite("Malloc arenas")
struct MallocArenasTests {
    @Test("On glibc the cap is set through mallopt, unless MALLOC_ARENA_MAX already decides it")
    func capIsSet() {
        #if canImport(Glibc)
        // Only a cap set through the environment is left alone; otherwise mallopt must be found
        // and accept M_ARENA_MAX (it returns 0 for an option it does not know).
        #expect(MallocArenas.limit(to: MallocArenas.nodeLimit) == (getenv("MALLOC_ARENA_MAX") == nil))
        #else
        #expect(MallocArenas.limit() == false)
        #endif
    }
}
