import Foundation

/// The commands of http-api.md section 5, all or nothing, each one change batch.
extension FakeNode {
    /// Creates a gallery.
    func createGallery(_ gallery: String) throws(Refusal) {
        try locked { () throws(Refusal) in
            guard !gallery.isEmpty, gallery.utf8.count <= 200, !gallery.contains(where: { $0.isNewline }) else {
                throw Refusal(status: 400, code: "badName", message: "a gallery name is 1 to 200 bytes on one line")
            }
            guard galleries[gallery] == nil else {
                throw Refusal(status: 409, code: "galleryExists", message: "there is a gallery named \(gallery) already")
            }
            galleryNames.append(gallery)
            galleries[gallery] = []
            emit([("galleryCreated", nil, gallery, [:])])
        }
    }

    /// Adds ready items with these bytes to the end of `gallery` (a test's starting state), one batch;
    /// returns their IDs.
    @discardableResult
    func seed(_ gallery: String, _ pictures: [(title: String, bytes: [UInt8], aspectRatio: Double)]) -> [String] {
        condition.withLock {
            if galleries[gallery] == nil {
                galleryNames.append(gallery)
                galleries[gallery] = []
            }
            var ids: [String] = []
            var last: (bytes: [UInt8], hash: String)?
            for picture in pictures {
                let hash = last.flatMap { $0.bytes == picture.bytes ? $0.hash : nil } ?? Self.hash(picture.bytes)
                last = (picture.bytes, hash)
                blobs[hash] = (picture.bytes, "image/png")
                let id = nextID()
                ids.append(id)
                galleries[gallery]!.append(Item(id: id, title: picture.title, hash: hash, bytes: picture.bytes.count,
                                                mediaType: "image/png", aspectRatio: picture.aspectRatio))
            }
            emit(ids.map { ("inserted", $0, gallery, [:]) })
            return ids
        }
    }

    /// Moves `ids` to `gallery` as one run at `index` (counted without them), or at the end.
    func move(_ ids: [String], to gallery: String, at index: Int?) throws(Refusal) {
        try locked { () throws(Refusal) in
            guard galleries[gallery] != nil else { throw Refusal(status: 404, code: "unknownGallery", message: "no gallery \(gallery)") }
            guard Set(ids).count == ids.count else { throw Refusal(status: 409, code: "repeatedItem", message: "an item is named twice") }
            var moving: [Item] = []
            for id in ids {
                guard let place = locate(id) else { throw Refusal(status: 404, code: "unknownItem", message: "no item \(id)") }
                moving.append(galleries[place.gallery]![place.index])
            }
            let remaining = galleries[gallery]!.filter { !ids.contains($0.id) }.count
            let at = index ?? remaining
            guard at >= 0, at <= remaining else { throw Refusal(status: 400, code: "badIndex", message: "index \(at) is past the end") }
            for name in galleryNames { galleries[name]!.removeAll { ids.contains($0.id) } }
            galleries[gallery]!.insert(contentsOf: moving, at: at)
            emit(ids.map { ("moved", $0, gallery, [:]) })
        }
    }

    /// Deletes `ids`; `reason` marks a failed placeholder.
    func delete(_ ids: [String], reason: String? = nil) throws(Refusal) {
        try locked { () throws(Refusal) in
            var places: [(String, String)] = []
            for id in ids {
                guard let place = locate(id) else { throw Refusal(status: 404, code: "unknownItem", message: "no item \(id)") }
                places.append((id, place.gallery))
            }
            for name in galleryNames { galleries[name]!.removeAll { ids.contains($0.id) } }
            emit(places.map { ("deleted", $0.0, $0.1, reason.map { ["reason": $0] } ?? [:]) })
        }
    }

    /// Sets a field of an item (`title`, `url`, `aspectRatio`).
    func update(_ id: String, field: String, value: Any) throws(Refusal) {
        try locked { () throws(Refusal) in
            guard let place = locate(id) else { throw Refusal(status: 404, code: "unknownItem", message: "no item \(id)") }
            switch field {
            case "title": galleries[place.gallery]![place.index].title = value as? String
            case "url": galleries[place.gallery]![place.index].url = value as? String
            case "aspectRatio": galleries[place.gallery]![place.index].aspectRatio = (value as? NSNumber)?.doubleValue
            default: throw Refusal(status: 400, code: "badField", message: "no field \(field)")
            }
            emit([("updated", id, nil, ["field": field])])
        }
    }

    /// Adds an item kept by URL reference.
    func addURL(_ url: String, to gallery: String, at index: Int?, title: String?, aspectRatio: Double?) throws(Refusal) -> Item {
        try locked { () throws(Refusal) -> Item in
            guard url.hasPrefix("http://") || url.hasPrefix("https://"), url.utf8.count <= 2048 else {
                throw Refusal(status: 400, code: "badURL", message: "only http and https URLs")
            }
            guard let count = galleries[gallery]?.count else { throw Refusal(status: 404, code: "unknownGallery", message: "no gallery \(gallery)") }
            let item = Item(id: nextID(), title: title ?? URL(string: url)?.lastPathComponent, aspectRatio: aspectRatio, url: url)
            galleries[gallery]!.insert(item, at: min(max(index ?? count, 0), count))
            emit([("inserted", item.id, gallery, [:])])
            return item
        }
    }
}
