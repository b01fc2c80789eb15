import Testing

/// The suites that block a thread while they wait for nodes on real sockets. They run one at a
/// time, so that at most one thread of the small Swift concurrency pool is blocked by them and the
/// other tests keep the rest.
@Suite("Nodes", .serialized)
enum NodeSuites {}
