import Foundation
import Testing

/// `GET /api/galleries/NAME/items?limit=N` against a real `gallery serve --http`: the gallery's
/// first N items in its order with its `total` (what the page paints its first screen from before
/// the whole list arrives); without `limit` the answer is the whole list, as before, with no `total`.
@Suite("web adapter: the first items of a gallery (?limit=N)", .serialized)
struct WebItemsLimitTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-limit-\(UUID().uuidString)")

    @Test("limit=2 of 5: the first two in order and total 5; limit over the size: all, total 5; bad limits 400 badLimit; unknown gallery 404")
    func firstItems() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("limit", base: base)
        defer { node.stop() }
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let paths = try (0..<5).map { index -> String in
            let url = base.appendingPathComponent("p\(index).png")
            try Data(WebAPITests.png(width: 30 + UInt32(index), height: 20, size: 1_000 + index)).write(to: url)
            return url.path
        }
        #expect(try node.gallery(["add"] + paths).status == 0)
        let ids = try node.ids("limit")
        try #require(ids.count == 5)

        let whole = try node.get("/api/galleries/limit/items")
        #expect((whole.json["items"] as? [[String: Any]])?.map { $0["id"] as? String ?? "" } == ids)
        #expect(whole.json["total"] == nil, "the whole list carries no total")

        let first = try node.get("/api/galleries/limit/items?limit=2")
        #expect(first.status == 200)
        let firstItems = first.json["items"] as? [[String: Any]] ?? []
        #expect(firstItems.map { $0["id"] as? String ?? "" } == Array(ids.prefix(2)))
        #expect(first.json["total"] as? Int == 5)
        #expect(first.json["lastEventId"] as? Int == whole.json["lastEventId"] as? Int)
        // The same ITEM as in the whole list, key for key.
        let wholeFirst = try #require((whole.json["items"] as? [[String: Any]])?.first)
        #expect(NSDictionary(dictionary: firstItems.first ?? [:]).isEqual(to: wholeFirst))

        let all = try node.get("/api/galleries/limit/items?limit=100")
        #expect((all.json["items"] as? [[String: Any]])?.count == 5)
        #expect(all.json["total"] as? Int == 5)

        for bad in ["0", "-1", "x", "100001", "99999999999999999999", ""] {
            let refused = try node.get("/api/galleries/limit/items?limit=\(bad)")
            #expect(refused.status == 400, "limit=\(bad)")
            #expect(refused.json["error"] as? String == "badLimit", "limit=\(bad)")
        }
        #expect(try node.get("/api/galleries/nowhere/items?limit=3").json["error"] as? String == "unknownGallery")
    }
}
