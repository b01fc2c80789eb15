import Foundation

// Subclassing Foundation streams: see SocketStreams.swift (a subclass must call one of the
// designated initializers of InputStream/OutputStream; their backing stream is never used). What
// both halves keep alike lives in `NonBlockingStreamState`, which their overrides forward to.

/// The reading half of a `NonBlockingSocket`, as a Foundation `InputStream` whose `delegate` the
/// event loop tells `hasBytesAvailable`, `endEncountered` and `errorOccurred`.
///
/// `read` never blocks: it returns >0 bytes; 0 either when nothing is there now (`streamStatus`
/// stays `.open` and `hasBytesAvailable` turns false until the loop says otherwise) or at end of
/// stream (`streamStatus` is `.atEnd`, and the delegate gets `endEncountered`); -1 with
/// `streamError` on failure (the delegate gets `errorOccurred`). Loop thread only.
package final class NonBlockingInputStream: InputStream {
    private unowned let socket: NonBlockingSocket
    private let state: NonBlockingStreamState
    private var available = false

    package init(socket: NonBlockingSocket) {
        self.socket = socket
        state = NonBlockingStreamState(socket: socket)
        super.init(data: Data())
    }

    package override var delegate: (any StreamDelegate)? {
        get { state.delegate }
        set { state.delegate = newValue }
    }

    /// Called by the socket when the loop finds it readable.
    package func notify(_ event: Stream.Event) {
        if event == .hasBytesAvailable { available = true }
        state.tell(event, from: self)
    }

    package override func open() { state.open() }
    package override func close() { state.close() }

    package override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard state.status == .open else { return state.status == .atEnd || state.status == .closed ? 0 : -1 }
        switch socket.receive(buffer, len) {
        case .success(nil):
            available = false
            return 0
        case .success(0?):
            available = false
            state.ended(self)
            return 0
        case .success(let count?):
            return count
        case .failure(let failure):
            return state.fail("recv", errno: failure.code, self)
        }
    }

    package override var hasBytesAvailable: Bool { state.status == .open && available }
    package override var streamStatus: Stream.Status { state.status }
    package override var streamError: Error? { state.error }

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
    private let state: NonBlockingStreamState
    private var full = false

    package init(socket: NonBlockingSocket) {
        self.socket = socket
        state = NonBlockingStreamState(socket: socket)
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
        get { state.delegate }
        set { state.delegate = newValue }
    }

    /// Called by the socket when the loop finds it writable.
    package func notify(_ event: Stream.Event) {
        if event == .hasSpaceAvailable { full = false }
        state.tell(event, from: self)
    }

    package override func open() { state.open() }
    package override func close() { state.close() }

    package override func write(_ buffer: UnsafePointer<UInt8>, maxLength len: Int) -> Int {
        guard state.status == .open else {
            if state.error == nil { state.error = .closed }
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
            return state.fail("send", errno: failure.code, self)
        }
    }

    package override var hasSpaceAvailable: Bool { state.status == .open && !full }
    package override var streamStatus: Stream.Status { state.status }
    package override var streamError: Error? { state.error }

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
