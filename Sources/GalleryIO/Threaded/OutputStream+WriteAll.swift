import Foundation

extension OutputStream {
    /// Writes every byte of `bytes`, retrying short writes: the one "write all" loop over a stream
    /// (a socket's `SocketOutputStream` or any other). Blocks while the stream has no room.
    ///
    /// - Returns: false when the stream failed or closed before every byte was written.
    @discardableResult
    package func writeAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(buffer.baseAddress! + offset, maxLength: buffer.count - offset)
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }
}
