import Foundation

/// The writing half of a socket as a Foundation `OutputStream`: every override forwards to `end`
/// (a blocking socket's or an event loop's, `StreamEnd`). See `SocketInputStream` on subclassing.
package final class SocketOutputStream: OutputStream {
    /// What the overrides forward to.
    package let end: any WritingEnd

    /// A stream over `end` (not yet opened).
    package init(_ end: any WritingEnd) {
        self.end = end
        super.init(toMemory: ())
    }

    #if !canImport(Darwin)
    /// Required by swift-corelibs-foundation's `OutputStream`; this stream needs a socket.
    @available(*, unavailable, message: "SocketOutputStream wraps a socket")
    package required init(toMemory: ()) {
        fatalError("SocketOutputStream wraps a socket")
    }
    #endif

    package override var delegate: (any StreamDelegate)? {
        get { end.delegate }
        set { end.delegate = newValue }
    }

    package override func open() { end.open() }
    package override func close() { end.close() }
    package override var streamStatus: Stream.Status { end.status }
    package override var streamError: Error? { end.error }
    package override var hasSpaceAvailable: Bool { end.hasSpaceAvailable }

    package override func write(_ buffer: UnsafePointer<UInt8>, maxLength len: Int) -> Int {
        end.write(buffer, maxLength: len, for: self)
    }

    #if canImport(Darwin)
    package override func property(forKey key: Stream.PropertyKey) -> Any? { nil }
    package override func setProperty(_ property: Any?, forKey key: Stream.PropertyKey) -> Bool { false }
    #else
    package override func property(forKey key: Stream.PropertyKey) -> AnyObject? { nil }
    package override func setProperty(_ property: AnyObject?, forKey key: Stream.PropertyKey) -> Bool { false }
    #endif

    /// A thread or an event loop, not a run loop, drives this stream.
    package override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
    package override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
}
