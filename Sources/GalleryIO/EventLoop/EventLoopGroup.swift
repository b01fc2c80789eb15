import Foundation
import Synchronization

/// A small fixed set of event loops (one per core, at most `maximumLoops`); connections are
/// assigned to them round robin, so a node runs the same few threads whatever its number of peers.
package final class EventLoopGroup: Sendable {
    /// The most loops a group starts by default.
    package static let maximumLoops = 4

    /// The loops, fixed for the group's life.
    package let loops: [EventLoop]
    /// Loops handed out so far: the round robin's cursor.
    private let cursor = Atomic<UInt>(0)

    /// Starts `count` loops (default: one per active core, 1 to `maximumLoops`), named `name-N`.
    package init(name: String, count: Int = min(max(ProcessInfo.processInfo.activeProcessorCount, 1), EventLoopGroup.maximumLoops)) throws(TransportError) {
        var loops: [EventLoop] = []
        for index in 0..<max(count, 1) {
            do {
                loops.append(try EventLoop(name: "\(name)-\(index)"))
            } catch {
                for loop in loops { loop.shutdown() }
                throw error
            }
        }
        self.loops = loops
    }

    /// The next loop, round robin.
    package func next() -> EventLoop {
        let turn = cursor.wrappingAdd(1, ordering: .relaxed).newValue
        return loops[Int(turn % UInt(loops.count))]
    }

    /// Ends every loop and waits for their threads.
    package func shutdown() {
        for loop in loops { loop.shutdown() }
    }
}
