import Foundation

/// Where the node core reads the time and sets its timers: the system's uptime clock in
/// production, a simulated clock driven by a scheduler in `GalleryMeshSimulation`.
///
/// Times are nanoseconds on a monotonic clock (uptime); only differences mean anything.
package protocol NodeClock: Sendable {
    /// The current time (nanoseconds, monotonic).
    var now: UInt64 { get }
    /// Runs `task` once, `nanoseconds` from now, off the caller's stack.
    func schedule(after nanoseconds: UInt64, _ task: @escaping @Sendable () -> Void)
}

/// The production clock: `DispatchTime` uptime. The node's own timers run on its event loops
/// (`SyncNode.scheduleTimer`); these, on Dispatch's global queue, serve a node without loops.
package struct SystemClock: NodeClock {
    package init() {}

    package var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    package func schedule(after nanoseconds: UInt64, _ task: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds)), execute: task)
    }
}
