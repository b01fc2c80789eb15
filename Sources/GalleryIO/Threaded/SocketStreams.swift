import Foundation

// Subclassing Foundation streams (verified on swift-corelibs-foundation, Swift 6.3.1, Linux):
// `Stream.init()` traps for direct subclasses, and `InputStream`/`OutputStream` have no plain
// `init()`, so a subclass must call one of their designated initializers. `super.init(data: Data())`
// and `super.init(toMemory: ())` work; the backing CFStream they create is never used because every
// method that would touch it is overridden here. On Linux `OutputStream.init(toMemory:)` is
// `required`, so `SocketOutputStream` must declare it (omitting it is a compile error); it is
// marked unavailable. Foundation's `Stream` is explicitly not `Sendable` on Linux, so these classes
// cannot declare a conformance; `StreamPair` carries them as `@unchecked Sendable`.

/// What a stream decided, under the lock, before a system call.
private enum CallStart {
    /// Make the call on this descriptor (balanced by `SocketConnection.endLocked()`).
    case call(Int32)
    /// Return this result without a system call.
    case finished(Int)

    /// The result to return when no call is made.
    var result: Int {
        if case .finished(let value) = self { return value }
        return -1
    }
}

/// The reading half of a connected TCP socket, as a Foundation `InputStream`.
///
/// `read` blocks (call it from a dedicated thread) and returns >0 bytes, 0 at end of stream or
/// after a local close, or -1 with `streamError` set. Closing this stream shuts the whole
/// connection down and wakes a blocked `read` or `write` on either stream.
final class SocketInputStream: InputStream {
    private let connection: SocketConnection
    /// Guarded by `connection.lock`.
    private var status: Stream.Status = .notOpen
    /// Guarded by `connection.lock`.
    private var error: TransportError?

    /// Makes the (not yet opened) reading stream of `connection`.
    init(_ connection: SocketConnection) {
        self.connection = connection
        super.init(data: Data())
    }

    override func open() {
        connection.open(&status)
    }

    override func close() {
        connection.close(&status)
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        let start = connection.lock.withLock { () -> CallStart in
            switch status {
            case .open:
                if len <= 0 { return .finished(0) }
                guard let fd = connection.beginLocked() else {
                    status = .atEnd
                    return .finished(0)
                }
                return .call(fd)
            case .atEnd, .closed:
                return .finished(0)
            case .notOpen:
                error = .io("read: the stream is not open")
                return .finished(-1)
            default:
                return .finished(-1)
            }
        }
        guard case .call(let descriptor) = start else { return start.result }

        let result = POSIX.receive(descriptor, buffer, len)
        return connection.lock.withLock {
            connection.endLocked()
            switch result {
            case .success(let count):
                if count == 0 && status == .open { status = .atEnd }
                return count
            case .failure(let failure):
                if connection.isShutLocked {
                    // Woken by a local close: report end of stream, not an error.
                    if status == .open { status = .atEnd }
                    return 0
                }
                if status == .open {
                    status = .error
                    error = .io(POSIX.describe("recv", errno: failure.code))
                }
                return -1
            }
        }
    }

    override var hasBytesAvailable: Bool {
        connection.lock.withLock { status == .open && !connection.isShutLocked }
    }

    override var streamStatus: Stream.Status {
        connection.lock.withLock { status }
    }

    override var streamError: Error? {
        connection.lock.withLock { error }
    }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
        length len: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }

    #if canImport(Darwin)
    override func property(forKey key: Stream.PropertyKey) -> Any? { nil }
    override func setProperty(_ property: Any?, forKey key: Stream.PropertyKey) -> Bool { false }
    #else
    override func property(forKey key: Stream.PropertyKey) -> AnyObject? { nil }
    override func setProperty(_ property: AnyObject?, forKey key: Stream.PropertyKey) -> Bool { false }
    #endif

    override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
    override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
}

/// The writing half of a connected TCP socket, as a Foundation `OutputStream`.
///
/// `write` blocks until every byte is handed to the kernel (short sends are looped) and returns
/// the full count, or -1 with `streamError` set. Concurrent writers must serialize themselves.
/// Closing this stream shuts the whole connection down and wakes a blocked `read` on the input.
final class SocketOutputStream: OutputStream {
    private let connection: SocketConnection
    /// Guarded by `connection.lock`.
    private var status: Stream.Status = .notOpen
    /// Guarded by `connection.lock`.
    private var error: TransportError?

    /// Makes the (not yet opened) writing stream of `connection`.
    init(_ connection: SocketConnection) {
        self.connection = connection
        super.init(toMemory: ())
    }

    #if !canImport(Darwin)
    /// Required by swift-corelibs-foundation's `OutputStream`; a socket stream needs a socket.
    @available(*, unavailable, message: "SocketOutputStream wraps a connected socket")
    required init(toMemory: ()) {
        fatalError("SocketOutputStream wraps a connected socket")
    }
    #endif

    override func open() {
        connection.open(&status)
    }

    override func close() {
        connection.close(&status)
    }

    override func write(_ buffer: UnsafePointer<UInt8>, maxLength len: Int) -> Int {
        let start = connection.lock.withLock { () -> CallStart in
            switch status {
            case .open:
                if len <= 0 { return .finished(0) }
                guard let fd = connection.beginLocked() else {
                    status = .error
                    error = .closed
                    return .finished(-1)
                }
                return .call(fd)
            case .notOpen:
                error = .io("write: the stream is not open")
                return .finished(-1)
            case .closed:
                if error == nil { error = .closed }
                return .finished(-1)
            default:
                return .finished(-1)
            }
        }
        guard case .call(let descriptor) = start else { return start.result }

        let failure = POSIX.sendAll(descriptor, buffer, len)
        return connection.lock.withLock {
            connection.endLocked()
            guard let failure else { return len }
            if status == .open {
                status = .error
                error = connection.isShutLocked ? .closed : .io(POSIX.describe("send", errno: failure.code))
            } else if error == nil {
                error = .closed
            }
            return -1
        }
    }

    override var hasSpaceAvailable: Bool {
        connection.lock.withLock { status == .open && !connection.isShutLocked }
    }

    override var streamStatus: Stream.Status {
        connection.lock.withLock { status }
    }

    override var streamError: Error? {
        connection.lock.withLock { error }
    }

    #if canImport(Darwin)
    override func property(forKey key: Stream.PropertyKey) -> Any? { nil }
    override func setProperty(_ property: Any?, forKey key: Stream.PropertyKey) -> Bool { false }
    #else
    override func property(forKey key: Stream.PropertyKey) -> AnyObject? { nil }
    override func setProperty(_ property: AnyObject?, forKey key: Stream.PropertyKey) -> Bool { false }
    #endif

    override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
    override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
}
