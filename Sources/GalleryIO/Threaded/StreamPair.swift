import Foundation

/// The two streams of one TCP connection, opened.
///
/// Reads block, so call `input.read` from a dedicated thread, never from the Swift cooperative pool.
/// One thread may read while another writes; concurrent writers must serialize themselves.
/// Closing either stream of a socket-backed pair shuts the whole connection down (no half-close).
// unchecked Sendable: Foundation streams are not Sendable; these socket-backed ones keep their state under a lock
package struct StreamPair: @unchecked Sendable {
    /// Bytes from the peer.
    package let input: InputStream
    /// Bytes to the peer.
    package let output: OutputStream
    /// The peer's numeric address as "ip:port" ("[ip]:port" for IPv6).
    package let remote: String

    /// Wraps two already opened streams.
    package init(input: InputStream, output: OutputStream, remote: String) {
        self.input = input
        self.output = output
        self.remote = remote
    }

    /// Closes both streams; a read blocked on another thread returns promptly.
    package func close() {
        input.close()
        output.close()
    }
}

extension StreamPair {
    /// Wraps a connected socket descriptor (which the pair now owns) in opened socket streams.
    package init(socket descriptor: Int32, remote: String) {
        let connection = SocketConnection(descriptor: descriptor)
        let input = SocketInputStream(BlockingSocketReader(connection))
        let output = SocketOutputStream(BlockingSocketWriter(connection))
        input.open()
        output.open()
        self.init(input: input, output: output, remote: remote)
    }
}
