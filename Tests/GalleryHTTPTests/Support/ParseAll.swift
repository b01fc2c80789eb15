import GalleryHTTP

/// A request as the parser reported it: head, the body bytes joined, whether `.end` arrived.
struct ParsedRequest: Equatable {
    var head: HTTPRequestHead
    var body: [UInt8] = []
    var ended = false
}

/// Everything one parser made of `bytes` fed in pieces of the given sizes (cycled; the whole at once
/// when empty): the requests, and the error that stopped it, if any.
func parseAll(_ bytes: [UInt8], pieces: [Int] = [], limits: HTTPLimits = .standard)
    -> (requests: [ParsedRequest], error: HTTPRequestError?) {
    var parser = HTTPRequestParser(limits: limits)
    var requests: [ParsedRequest] = []
    var offset = 0
    var pieceIndex = 0
    while offset < bytes.count {
        let size = pieces.isEmpty ? bytes.count : max(1, pieces[pieceIndex % pieces.count])
        pieceIndex += 1
        let end = min(offset + size, bytes.count)
        parser.receive(bytes[offset..<end])
        offset = end
        do {
            while let event = try parser.next() {
                switch event {
                case .head(let head): requests.append(ParsedRequest(head: head))
                case .body(let chunk): requests[requests.count - 1].body += chunk
                case .end: requests[requests.count - 1].ended = true
                }
            }
        } catch {
            return (requests, error)
        }
    }
    return (requests, nil)
}

/// The request text with every "\n" turned into CRLF.
func crlf(_ text: String) -> [UInt8] {
    Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8)
}
