import GalleryHTTP
import Testing

/// `Range` header resolution: the three single-range forms, clamping, 416 and the ignored cases.
@Suite("HTTP byte ranges")
struct ByteRangeTests {
    @Test("bytes=a-b, a- and -n resolve to the right bytes; an end past the length is clamped")
    func singleRanges() {
        #expect(HTTPByteRange(header: "bytes=0-99", length: 1000) == .partial(0...99))
        #expect(HTTPByteRange(header: "bytes=500-", length: 1000) == .partial(500...999))
        #expect(HTTPByteRange(header: "bytes=-100", length: 1000) == .partial(900...999))
        #expect(HTTPByteRange(header: "bytes=-5000", length: 1000) == .partial(0...999))
        #expect(HTTPByteRange(header: "bytes=990-5000", length: 1000) == .partial(990...999))
        #expect(HTTPByteRange(header: " Bytes = 1 - 1 ", length: 10) == .partial(1...1))
        #expect(HTTPByteRange(header: "bytes=999-999", length: 1000).contentRange(length: 1000) == "bytes 999-999/1000")
        #expect(HTTPByteRange(header: "bytes=0-0", length: 1).status == .partialContent)
    }

    @Test("A start at or past the end, a zero suffix, or any range of an empty resource is 416")
    func unsatisfiable() {
        #expect(HTTPByteRange(header: "bytes=1000-", length: 1000) == .unsatisfiable)
        #expect(HTTPByteRange(header: "bytes=1000-2000", length: 1000) == .unsatisfiable)
        #expect(HTTPByteRange(header: "bytes=-0", length: 1000) == .unsatisfiable)
        #expect(HTTPByteRange(header: "bytes=0-", length: 0) == .unsatisfiable)
        #expect(HTTPByteRange(header: "bytes=-1", length: 0) == .unsatisfiable)
        let range = HTTPByteRange(header: "bytes=5000-", length: 1000)
        #expect(range.status.code == 416)
        #expect(range.contentRange(length: 1000) == "bytes */1000")
    }

    @Test("No header, another unit, several ranges and syntax errors send the whole resource")
    func ignored() {
        for header in [nil, "items=0-1", "bytes=0-1,5-6", "bytes=5-1", "bytes=a-b", "bytes=--1", "bytes=",
                       "bytes=-", "bytes=1-2-3", "bytes 0-1", "bytes=99999999999999999999-"] {
            #expect(HTTPByteRange(header: header, length: 1000) == .whole, "\(header ?? "nil")")
        }
        #expect(HTTPByteRange.whole.contentRange(length: 5) == nil)
        #expect(HTTPByteRange.whole.status == .ok)
    }
}
