import Foundation

/// Runs CPU-heavy test work on its own thread, so that it does not hold one of the few threads of
/// the Swift concurrency pool that every other test (network tests among them) needs.
enum DedicatedThread {
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
