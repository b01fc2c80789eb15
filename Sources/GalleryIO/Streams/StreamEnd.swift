import Foundation

/// One end of a socket's bytes behind a Foundation stream: what `SocketInputStream` and
/// `SocketOutputStream` forward every override to. A blocking socket's ends (`BlockingSocketEnd`,
/// one thread per direction) and a non-blocking socket's (`NonBlockingSocketEnd`, on an event
/// loop, telling the delegate) implement it; the Foundation classes stay the same for both.
package protocol StreamEnd: AnyObject {
    /// The stream's status.
    var status: Stream.Status { get }
    /// Why the stream failed, once it has.
    var error: TransportError? { get }
    /// The stream's delegate (held weakly), told events by the ends that have them.
    var delegate: (any StreamDelegate)? { get set }
    /// `open()`: a stream not yet open becomes open.
    func open()
    /// `close()`: closing either end closes the socket.
    func close()
}

/// The reading end of a socket.
package protocol ReadingEnd: StreamEnd {
    /// Whether a read may return bytes (`hasBytesAvailable`).
    var hasBytesAvailable: Bool { get }
    /// `read(_:maxLength:)` of `stream`: >0 bytes, 0 at the end (or nothing there now, for a
    /// non-blocking end), -1 with `error` set.
    func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int, for stream: Stream) -> Int
}

/// The writing end of a socket.
package protocol WritingEnd: StreamEnd {
    /// Whether a write may take bytes (`hasSpaceAvailable`).
    var hasSpaceAvailable: Bool { get }
    /// `write(_:maxLength:)` of `stream`: the bytes taken, or -1 with `error` set.
    func write(_ buffer: UnsafePointer<UInt8>, maxLength length: Int, for stream: Stream) -> Int
}
