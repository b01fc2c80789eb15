import Foundation

/// What the two ends of a `NonBlockingSocket` keep alike: the status, the error, the delegate
/// (held weakly), opening, closing (which closes the socket), telling the delegate an event, and
/// failing a system call. Its subclasses read (`NonBlockingSocketReader`) and write
/// (`NonBlockingSocketWriter`). Loop thread only.
class NonBlockingSocketEnd {
    unowned let socket: NonBlockingSocket
    /// The stream's status.
    var status: Stream.Status = .notOpen
    /// Why the stream failed, once it has.
    var error: TransportError?
    /// The stream's delegate.
    weak var delegate: (any StreamDelegate)?

    init(socket: NonBlockingSocket) {
        self.socket = socket
    }

    /// `open()`: a stream not yet open becomes open.
    func open() {
        if status == .notOpen { status = .open }
    }

    /// `close()`: closes the socket, once.
    func close() {
        guard status != .closed else { return }
        status = .closed
        socket.close()
    }

    /// The stream reached the end of the peer's bytes: `endEncountered`.
    func ended(_ stream: Stream) {
        status = .atEnd
        tell(.endEncountered, from: stream)
    }

    /// A system call failed: the stream is in error, the delegate gets `errorOccurred`; -1, what
    /// `read` and `write` return then.
    func fail(_ call: String, errno code: Int32, _ stream: Stream) -> Int {
        status = .error
        error = .io(POSIX.describe(call, errno: code))
        tell(.errorOccurred, from: stream)
        return -1
    }

    /// Tells the delegate an event (an optional requirement on Darwin, a required one on Linux).
    func tell(_ event: Stream.Event, from stream: Stream) {
        #if canImport(Darwin)
        delegate?.stream?(stream, handle: event)
        #else
        delegate?.stream(stream, handle: event)
        #endif
    }
}
