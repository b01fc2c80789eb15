import Foundation

// Subclassing Foundation streams (verified on swift-corelibs-foundation, Swift 6.3.1, Linux):
// `Stream.init()` traps for direct subclasses, and `InputStream`/`OutputStream` have no plain
// `init()`, so a subclass must call one of their designated initializers. `super.init(data: Data())`
// and `super.init(toMemory: ())` work; the backing CFStream they create is never used because every
// method that would touch it is overridden (on Darwin `NSStream` leaves them to subclasses). On
// Linux `OutputStream.init(toMemory:)` is `required`, so `SocketOutputStream` must declare it
// (omitting it is a compile error); it is marked unavailable. Foundation's `Stream` is explicitly
// not `Sendable` on Linux, so these classes cannot declare a conformance; `StreamPair` carries
// them as `@unchecked Sendable`.
//
// The two classes override the same members, each for its own Foundation base class (which share
// no base of ours): their bodies are one-line forwards to the socket's end, where the logic lives.

/// The reading half of a socket as a Foundation `InputStream`: every override forwards to `end`
/// (a blocking socket's or an event loop's, `StreamEnd`).
package final class SocketInputStream: InputStream {
    /// What the overrides forward to.
    package let end: any ReadingEnd

    /// A stream over `end` (not yet opened).
    package init(_ end: any ReadingEnd) {
        self.end = end
        super.init(data: Data())
    }

    package override var delegate: (any StreamDelegate)? {
        get { end.delegate }
        set { end.delegate = newValue }
    }

    package override func open() { end.open() }
    package override func close() { end.close() }
    package override var streamStatus: Stream.Status { end.status }
    package override var streamError: Error? { end.error }
    package override var hasBytesAvailable: Bool { end.hasBytesAvailable }

    package override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        end.read(buffer, maxLength: len, for: self)
    }

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

    /// A thread or an event loop, not a run loop, drives this stream.
    package override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
    package override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
}
