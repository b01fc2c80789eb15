import Foundation

// Subclassing Foundation streams: see SocketStreams.swift (a subclass must call one of the
// designated initializers of InputStream/OutputStream; their backing stream is never used).

/// Tells a stream's delegate an event (an optional requirement on Darwin, a required one on Linux).
private func tell(_ delegate: (any StreamDelegate)?, _ stream: Stream, _ event: Stream.Event) {
    #if canImport(Darwin)
    delegate?.stream?(stream, handle: event)
    #else
    delegate?.stream(stream, handle: event)
    #endif
}

/// The reading half of a `NonBlockingSocket`, as a Foundation `InputStream` whose `delegate` the
/// event loop tells `hasBytesAvailable`, `endEncountered` and `errorOccurred`.
///
/// `read` never blocks: it returns >0 bytes; 0 either when nothing is there now (`streamStatus`
/// stays `.open` and `hasBytesAvailable` turns false until the loop says otherwise) or at end of
/// stream (`streamStatus` is `.atEnd`, and the delegate gets `endEncountered`); -1 with
/// `streamError` on failure (the delegate gets `errorOccurred`). Loop thread only.
package final class NonBlockingInputStream: InputStream {
    private unowned let socket: NonBlockingSocket
    private var status: Stream.Status = .notOpen
    private var error: TransportError?
    private var available = false
    private weak var streamDelegate: (any StreamDelegate)?

    package init(socket: NonBlockingSocket) {
        self.socket = socket
        super.init(data: Data())
    }

    package override var delegate: (any StreamDelegate)? {
        get { streamDelegate }
        set { streamDelegate = newValue }
    }

    /// Called by the socket when the loop finds it readable.
    package func notify(_ event: Stream.Event) {
        if event == .hasBytesAvailable { available = true }
        tell(streamDelegate, self, event)
    }

    package override func open() { if status == .notOpen { status = .open } }

    package override func close() {
        guard status != .closed else { return }
        status = .closed
        socket.close()
    }

    package override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard status == .open else { return status == .atEnd || status == .closed ? 0 : -1 }
        switch socket.receive(buffer, len) {
        case .success(nil):
            available = false
            return 0
        case .success(0?):
            status = .atEnd
            available = false
            tell(streamDelegate, self, .endEncountered)
            return 0
        case .success(let count?):
            return count
        case .failure(let failure):
            status = .error
            error = .io(POSIX.describe("recv", errno: failure.code))
            tell(streamDelegate, self, .errorOccurred)
            return -1
        }
    }

    package override var hasBytesAvailable: Bool { status == .open && available }
    package override var streamStatus: Stream.Status { status }
    package override var streamError: Error? { error }

    package override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>
    ) -> Bool { false }

    #if canImport(Darwin)
    package override func property(forKey key: Stream.PropertyKey) -> Any? { nil }
    package override func setProperty(_ property: Any?, forKey key: Stream.PropertyKey) -> Bool { false }
    #else
    package override func property(forKey key: Stream.PropertyKey) -> AnyObject? { nil }
    package override func setProperty(_ property: AnyObject?, forKey key: Stream.PropertyKey) -> Bool { false }
    #endif

    /// The event loop, not a run loop, delivers this stream's events.
    package override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
    package override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
}

/// The writing half of a `NonBlockingSocket`, as a Foundation `OutputStream` whose `delegate`
/// the event loop tells `hasSpaceAvailable` (after a write found the socket full) and
/// `errorOccurred`.
///
/// `write` never blocks: it returns the bytes the kernel took (0 when the socket is full: the
/// delegate gets `hasSpaceAvailable` once it has room), or -1 with `streamError`. Loop thread only.
package final class NonBlockingOutputStream: OutputStream {
    private unowned let socket: NonBlockingSocket
    private var status: Stream.Status = .notOpen
    private var error: TransportError?
    private var full = false
    private weak var streamDelegate: (any StreamDelegate)?

    package init(socket: NonBlockingSocket) {
        self.socket = socket
        super.init(toMemory: ())
    }

    #if !canImport(Darwin)
    /// Required by swift-corelibs-foundation's `OutputStream`; this stream needs a socket.
    @available(*, unavailable, message: "NonBlockingOutputStream wraps a socket")
    package required init(toMemory: ()) {
        fatalError("NonBlockingOutputStream wraps a socket")
    }
    #endif

    package override var delegate: (any StreamDelegate)? {
        get { streamDelegate }
        set { streamDelegate = newValue }
    }

    /// Called by the socket when the loop finds it writable.
    package func notify(_ event: Stream.Event) {
        if event == .hasSpaceAvailable { full = false }
        tell(streamDelegate, self, event)
    }

    package override func open() { if status == .notOpen { status = .open } }

    package override func close() {
        guard status != .closed else { return }
        status = .closed
        socket.close()
    }

    package override func write(_ buffer: UnsafePointer<UInt8>, maxLength len: Int) -> Int {
        guard status == .open else {
            if error == nil { error = .closed }
            return -1
        }
        switch socket.send(buffer, len) {
        case .success(let count):
            if count < len {
                full = true
                socket.waitForSpace()
            }
            return count
        case .failure(let failure):
            status = .error
            error = .io(POSIX.describe("send", errno: failure.code))
            tell(streamDelegate, self, .errorOccurred)
            return -1
        }
    }

    package override var hasSpaceAvailable: Bool { status == .open && !full }
    package override var streamStatus: Stream.Status { status }
    package override var streamError: Error? { error }

    #if canImport(Darwin)
    package override func property(forKey key: Stream.PropertyKey) -> Any? { nil }
    package override func setProperty(_ property: Any?, forKey key: Stream.PropertyKey) -> Bool { false }
    #else
    package override func property(forKey key: Stream.PropertyKey) -> AnyObject? { nil }
    package override func setProperty(_ property: AnyObject?, forKey key: Stream.PropertyKey) -> Bool { false }
    #endif

    /// The event loop, not a run loop, delivers this stream's events.
    package override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
    package override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
}
