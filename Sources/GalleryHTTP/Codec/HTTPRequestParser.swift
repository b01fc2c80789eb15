/// What the parser found next in a connection's bytes.
package enum HTTPRequestEvent: Hashable, Sendable {
    /// A complete, checked request head; the body (possibly empty) follows.
    case head(HTTPRequestHead)
    /// The next piece of the current request's body.
    case body([UInt8])
    /// The current request's body is complete; the next event belongs to the next request.
    case end
}

/// An incremental, sans-I/O HTTP/1.1 request parser: feed it whatever bytes a socket read returned
/// with `receive`, then call `next()` until it returns nil (it needs more bytes).
///
/// It is strict where leniency enables request smuggling or unbounded memory (RFC 9112):
/// - lines end in CRLF; a bare LF or a bare CR is refused, and so is obs-fold (a line that starts
///   with a space or tab) and whitespace between a field name and its colon;
/// - a body's length comes from `Content-Length` only; `Transfer-Encoding` (chunked or any coding)
///   is refused with 501, and together with `Content-Length` with 400; a duplicate
///   `Content-Length` or `Host` is refused with 400, and HTTP/1.1 without `Host` too;
/// - the request line is bounded (414), the head in bytes and in fields (431), the body length (413);
/// - only origin-form targets ("/...") and "*" are accepted.
///
/// Requests may be pipelined: bytes after one request's body stay buffered for the next. Once
/// `next()` has thrown, every later call throws the same error: answer with `error.status`, then
/// close the connection, since the stream can no longer be trusted to be in step.
///
/// Memory: after `next()` returns nil the parser holds at most `limits.maxHeaderBytes` plus the bytes of
/// the last `receive`; body bytes are handed out as they arrive, never accumulated.
package struct HTTPRequestParser: Sendable {
    /// Where the parser is in the current request.
    private enum State: Sendable {
        /// Reading the head; `progress` holds the lines parsed so far.
        case head(HeadProgress)
        /// Reading a body with this many bytes still to come.
        case body(remaining: UInt64)
        /// Refused; every later call throws this error.
        case failed(HTTPRequestError)
    }

    /// The lines of a head parsed so far.
    struct HeadProgress: Sendable {
        /// Method, target and version, once the request line is parsed.
        var requestLine: (method: String, target: String, version: HTTPVersion)?
        /// Header fields parsed so far (lower-cased names).
        var headers = HTTPHeaders()
        /// Bytes of the head consumed so far, CRLFs included.
        var byteCount = 0
    }

    /// The bounds enforced.
    package let limits: HTTPLimits
    private var buffer: [UInt8] = []
    /// Index of the first byte of `buffer` not yet consumed.
    private var start = 0
    /// Index in `buffer` before which no LF remains unconsumed (so a slowly arriving line is scanned once).
    private var scanned = 0
    private var state: State = .head(HeadProgress())

    /// A parser at the start of a connection.
    package init(limits: HTTPLimits = .standard) {
        self.limits = limits
    }

    /// Bytes received and not yet consumed.
    package var bufferedByteCount: Int { buffer.count - start }

    /// True between requests with no byte of the next one received: a clean place to close an idle connection.
    package var isIdle: Bool {
        if case .head(let progress) = state {
            return progress.requestLine == nil && progress.byteCount == 0 && bufferedByteCount == 0
        }
        return false
    }

    /// Appends bytes read from the connection. Call `next()` until it returns nil afterwards.
    package mutating func receive<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if start > 0 {
            buffer.removeFirst(start)
            scanned = max(scanned - start, 0)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next event, or nil when more bytes are needed.
    /// - Throws: `HTTPRequestError` when the request must be refused; the parser stays failed.
    /// - Complexity: O(n) in the bytes received since the last call.
    package mutating func next() throws(HTTPRequestError) -> HTTPRequestEvent? {
        switch state {
        case .failed(let error):
            throw error
        case .body(let remaining):
            if remaining == 0 {
                state = .head(HeadProgress())
                return .end
            }
            let available = bufferedByteCount
            if available == 0 { return nil }
            let count = Int(min(UInt64(available), remaining))
            let chunk = Array(buffer[start..<start + count])
            start += count
            state = .body(remaining: remaining - UInt64(count))
            return .body(chunk)
        case .head(var progress):
            do {
                let head = try parseHead(&progress)
                if let head {
                    state = .body(remaining: head.contentLength)
                    return .head(head)
                }
                state = .head(progress)
                return nil
            } catch {
                state = .failed(error)
                throw error
            }
        }
    }

    /// Consumes complete head lines; returns the head once its empty line arrives, nil if more bytes are needed.
    private mutating func parseHead(_ progress: inout HeadProgress) throws(HTTPRequestError) -> HTTPRequestHead? {
        while true {
            let unscanned = max(start, scanned)
            guard let newline = buffer[unscanned...].firstIndex(of: 0x0A) else {
                scanned = buffer.count
                try checkPartialLine(progress, newFrom: unscanned)
                return nil
            }
            guard newline > start, buffer[newline - 1] == 0x0D else {
                throw .malformed("line ends in a bare LF (CRLF required)")
            }
            let line = buffer[start..<newline - 1]
            if line.contains(0x0D) { throw .malformed("bare CR inside a line") }
            progress.byteCount += newline + 1 - start
            if progress.byteCount > limits.maxHeaderBytes { throw .headersTooLarge(limit: limits.maxHeaderBytes) }
            start = newline + 1

            guard progress.requestLine != nil else {
                if line.isEmpty { continue }  // RFC 9112 §2.2: empty lines before the request line are ignored.
                if line.count > limits.maxRequestLineBytes {
                    throw .requestLineTooLong(limit: limits.maxRequestLineBytes)
                }
                progress.requestLine = try Self.parseRequestLine(line)
                continue
            }
            if line.isEmpty { return try finishHead(progress) }
            let (name, value) = try Self.parseField(line)
            progress.headers.add(name, value)
            if progress.headers.count > limits.maxHeaderCount { throw .tooManyHeaders(limit: limits.maxHeaderCount) }
        }
    }

    /// Refuses a line still without its LF once it can no longer fit, or once it holds a bare CR.
    /// Only bytes from `newFrom` (and the one before, whose follower just arrived) are scanned again.
    private func checkPartialLine(_ progress: HeadProgress, newFrom: Int) throws(HTTPRequestError) {
        let pending = buffer[start...]
        // No LF is buffered, so a CR with any byte after it is a bare CR.
        if let cr = buffer[max(start, newFrom - 1)...].firstIndex(of: 0x0D), cr + 1 < buffer.count {
            throw .malformed("bare CR inside a line")
        }
        if progress.requestLine == nil, pending.count > limits.maxRequestLineBytes + 1 {
            throw .requestLineTooLong(limit: limits.maxRequestLineBytes)
        }
        if progress.byteCount + pending.count > limits.maxHeaderBytes {
            throw .headersTooLarge(limit: limits.maxHeaderBytes)
        }
    }

    /// Checks the framing fields of a complete head and builds it.
    private func finishHead(_ progress: HeadProgress) throws(HTTPRequestError) -> HTTPRequestHead {
        guard let requestLine = progress.requestLine else { throw .malformed("no request line") }
        let headers = progress.headers

        let hosts = headers.values("host")
        if hosts.count > 1 { throw .malformed("duplicate Host") }
        if requestLine.version == .http1_1 && hosts.isEmpty { throw .malformed("HTTP/1.1 request without Host") }
        if let host = hosts.first, !Self.isValidHost(host) { throw .malformed("invalid Host") }

        let lengths = headers.values("content-length")
        let codings = headers.values("transfer-encoding")
        if !codings.isEmpty {
            if !lengths.isEmpty { throw .malformed("both Transfer-Encoding and Content-Length") }
            throw .transferEncodingNotImplemented(codings.joined(separator: ", "))
        }
        if lengths.count > 1 { throw .malformed("duplicate Content-Length") }
        var contentLength: UInt64 = 0
        if let text = lengths.first {
            guard let length = Self.parseContentLength(text) else { throw .malformed("invalid Content-Length") }
            if length > limits.maxContentLength {
                throw .contentTooLarge(length: length, limit: Int(clamping: limits.maxContentLength))
            }
            contentLength = length
        }
        for expectation in headers.values("expect") where expectation.lowercased() != "100-continue" {
            throw .unsupportedExpectation(expectation)
        }
        return HTTPRequestHead(method: requestLine.method, target: requestLine.target,
                               version: requestLine.version, headers: headers, contentLength: contentLength)
    }
}
