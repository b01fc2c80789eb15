import Foundation
import GalleryWire
@testable import GalleryWeb
import Testing

/// The items answer written straight into bytes (`WebItems.encode`) is the JSON `JSONEncoder` makes
/// of the same listing: every key, nulls, escapes, numbers, the Trash's extra keys.
@Suite("Web items JSON writer")
struct WebItemsWriterTests {
    private static func reference(_ listing: WebItems.Listing) throws -> Any {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try JSONSerialization.jsonObject(with: encoder.encode(listing))
    }

    private static let tricky: [ItemListing] = {
        var trashed = ItemListing(id: "3@00000000000000ff", title: nil, state: "ready", hash: nil, bytes: nil, mediaType: nil,
                                  aspectRatio: 1.0 / 65_536, url: "https://example.org/a b/\u{e9}.png", progress: nil)
        trashed.from = "Trip \"2024\""
        trashed.trashedAt = 1_700_000_000_123
        var trashedUndated = trashed
        trashedUndated.trashedAt = nil
        return [
            ItemListing(id: "1@00000000000000ab", title: "quote \" backslash \\ slash / tab \t newline \n cr \r nul \u{0} bell \u{7} del \u{7f}",
                        state: "ready", hash: String(repeating: "a", count: 64), bytes: 1 << 40, mediaType: "image/png",
                        aspectRatio: 1.5, url: nil, progress: nil),
            ItemListing(id: "2@00000000000000ab", title: "émoji 👍🏽 and CJK 漢字, U+2028 \u{2028}", state: "placeholder", hash: nil,
                        bytes: 0, mediaType: "image/jpeg", aspectRatio: 65_536, url: nil, progress: .init(done: 5, total: 10)),
            trashed, trashedUndated,
        ]
    }()

    @Test("the same JSON as JSONEncoder for awkward titles, numbers, progress, Trash listings and a first screen's total")
    func matchesEncoder() throws {
        let cases: [([ItemListing], Int?)] = [([], nil), (Self.tricky, nil), (Self.tricky, 9_000)]
        for (items, total) in cases {
            let listing = WebItems.Listing(gallery: "My \"trip\"\n", items: items, lastEventId: 42, total: total)
            let ours = try JSONSerialization.jsonObject(with: Data(WebItems.encode(listing)))
            #expect((ours as? NSDictionary) == (try Self.reference(listing) as? NSDictionary), "\(String(decoding: WebItems.encode(listing), as: UTF8.self))")
        }
    }

    @Test("10,000 items: the same JSON as JSONEncoder; both timed (printed, not asserted)")
    func large() throws {
        let hash = String(repeating: "0123456789abcdef", count: 4)
        let items = (0..<10_000).map { (n: Int) -> ItemListing in
            let ratio = Double(n % 7 + 1) / 3
            return ItemListing(id: "\(n + 1)@00000000000000ab", title: "picture-\(n).png", state: "ready", hash: hash,
                               bytes: Int64(4_096 + n), mediaType: "image/png", aspectRatio: ratio, url: nil, progress: nil)
        }
        let listing = WebItems.Listing(gallery: "alice", items: items, lastEventId: 7)
        let clock = ContinuousClock()
        var ours: [UInt8] = []
        let written = clock.measure { ours = WebItems.encode(listing) }
        var reference = Data()
        let encoded = try clock.measure {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            reference = try encoder.encode(listing)
        }
        print("web items writer: 10,000 items, \(ours.count) bytes in \(written); JSONEncoder \(reference.count) bytes in \(encoded)")
        let parsed = try JSONSerialization.jsonObject(with: Data(ours)) as? NSDictionary
        #expect(parsed == (try JSONSerialization.jsonObject(with: reference) as? NSDictionary))
    }
}
