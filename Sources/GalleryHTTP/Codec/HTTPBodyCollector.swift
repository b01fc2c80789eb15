/// Gathers a whole request body for routes that read it at once (JSON), refusing with 413 before a
/// byte is read when the declared length is over the route's limit.
package struct HTTPBodyCollector: Sendable {
    /// The bytes gathered so far.
    package private(set) var bytes: [UInt8] = []
    /// The declared length.
    package let expectedLength: Int

    /// Starts collecting the body announced by `head`.
    /// - Throws: `.contentTooLarge` when `head.contentLength` is over `limit`.
    package init(head: HTTPRequestHead, limit: Int = HTTPLimits.maxBufferedBodyBytes) throws(HTTPRequestError) {
        guard head.contentLength <= UInt64(max(limit, 0)) else {
            throw .contentTooLarge(length: head.contentLength, limit: limit)
        }
        expectedLength = Int(head.contentLength)
        bytes.reserveCapacity(expectedLength)
    }

    /// Appends a body piece from the parser (which never hands out more than the declared length).
    package mutating func append(_ chunk: [UInt8]) {
        bytes.append(contentsOf: chunk.prefix(expectedLength - bytes.count))
    }

    /// True once every declared byte arrived.
    package var isComplete: Bool { bytes.count == expectedLength }
}
