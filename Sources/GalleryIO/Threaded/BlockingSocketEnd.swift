import Foundation

/// What a blocking end decided, under the lock, before a system call.
enum CallStart {
    /// Make the call on this descriptor (balanced by `BlockingSocketEnd.finish`).
    case call(Int32)
    /// Return this result without a system call.
    case finished(Int)

    /// The result to return when no call is made.
    var result: Int {
        if case .finished(let value) = self { return value }
        return -1
    }
}

/// What the two ends of a blocking socket (`SocketConnection`) keep alike: the status and error,
/// guarded by the connection's lock, opening and closing (closing either shuts the connection
/// down and wakes a call blocked on the other), and the start and end of a system call. Its
/// subclasses read (`BlockingSocketReader`) and write (`BlockingSocketWriter`); a thread of its own
/// drives each. `@unchecked Sendable`: the mutable state is guarded by `connection.lock`.
// unchecked Sendable: a base class whose state is under `connection.lock`, around the socket's descriptor
class BlockingSocketEnd: @unchecked Sendable {
    let connection: SocketConnection
    /// The status. Guarded by `connection.lock`.
    var lockedStatus: Stream.Status = .notOpen
    /// Why the stream failed. Guarded by `connection.lock`.
    var lockedError: TransportError?
    /// The stream's delegate: kept, never told anything (a blocking stream has no events).
    weak var delegate: (any StreamDelegate)?

    /// An end (not yet opened) of `connection`.
    init(_ connection: SocketConnection) {
        self.connection = connection
    }

    var status: Stream.Status { connection.lock.withLock { lockedStatus } }
    var error: TransportError? { connection.lock.withLock { lockedError } }

    /// Whether the end is open and the connection not shut down.
    var isUsable: Bool { connection.lock.withLock { lockedStatus == .open && !connection.isShutLocked } }

    func open() { connection.open(&lockedStatus) }
    func close() { connection.close(&lockedStatus) }

    /// Decides, under the lock, whether `call` ("read", "write") of `length` bytes goes to the
    /// socket; `otherwise` sets the status and error of an end that cannot make it (open on a
    /// shut connection, ended, closed, failed) and says what to return.
    func begin(_ call: String, length: Int,
               otherwise: (inout Stream.Status, inout TransportError?) -> Int) -> CallStart {
        connection.lock.withLock {
            if lockedStatus == .open {
                if length <= 0 { return .finished(0) }
                if let descriptor = connection.beginLocked() { return .call(descriptor) }
            } else if lockedStatus == .notOpen {
                lockedError = .io("\(call): the stream is not open")
                return .finished(-1)
            }
            return .finished(otherwise(&lockedStatus, &lockedError))
        }
    }

    /// Ends a call that `begin` started, under the lock: `outcome` sees the status and error.
    func finish(_ outcome: () -> Int) -> Int {
        connection.lock.withLock {
            connection.endLocked()
            return outcome()
        }
    }
}
