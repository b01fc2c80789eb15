import Foundation
import GalleryIO
import Synchronization

/// Another socket on a node's old port, so that the node cannot take it back: it accepts every
/// connection, counts it (a dial of the old address) and closes it at once.
final class PortHolder: Sendable {
    private let listener: Listener
    private let accepted = Mutex(0)
    private let finished = DispatchSemaphore(value: 0)

    /// Listens on `endpoint` (throws when it is taken).
    init(_ endpoint: Endpoint) throws {
        listener = try Listener(endpoint)
        Thread.detachNewThread { [self] in
            while let streams = try? listener.accept() {
                accepted.withLock { $0 += 1 }
                streams.close()
            }
            finished.signal()
        }
    }

    /// The connections accepted so far.
    var count: Int { accepted.withLock { $0 } }

    /// Stops listening and waits for the accepting thread.
    func close() {
        listener.close()
        _ = finished.wait(timeout: .now() + 5)
    }
}
