import Foundation

/// Uploads and cross-node drops (http-api.md section 5): placeholders at once, bytes later, commit
/// where the placeholder stands, failures with a reason.
extension FakeNode {
    /// The media types a page may upload.
    static let imageTypes: Set<String> = ["image/png", "image/jpeg", "image/gif"]

    /// Step 1 of an upload: one placeholder per file at `index` of `gallery`.
    func beginUploads(to gallery: String, at index: Int?, files: [(name: String, size: Int, mediaType: String)])
        throws(Refusal) -> [(upload: String, item: String)] {
        try locked { () throws(Refusal) -> [(upload: String, item: String)] in
            guard let count = galleries[gallery]?.count else { throw Refusal(status: 404, code: "unknownGallery", message: "no gallery \(gallery)") }
            if let file = files.first(where: { !Self.imageTypes.contains($0.mediaType) }) {
                throw Refusal(status: 415, code: "notAnImage", message: "\(file.name) is not a PNG, JPEG or GIF image")
            }
            let at = min(max(index ?? count, 0), count)
            var made: [(upload: String, item: String)] = []
            for (offset, file) in files.enumerated() {
                let id = nextID()
                galleries[gallery]!.insert(Item(id: id, title: file.name, state: "placeholder", bytes: file.size,
                                                mediaType: file.mediaType), at: at + offset)
                let upload = "u\(counter)"
                uploads[upload] = (id, file.size, file.mediaType)
                made.append((upload, id))
            }
            emit(made.map { ("inserted", $0.item, gallery, [:]) })
            return made
        }
    }

    /// The placeholder of `upload`, for progress reports.
    func uploadPlaceholder(_ upload: String) -> (item: String, size: Int)? {
        condition.withLock { uploads[upload].map { ($0.item, $0.size) } }
    }

    /// Reports `done` bytes of `upload` received.
    func uploadProgress(_ upload: String, done: Int) {
        condition.withLock {
            guard let entry = uploads[upload] else { return }
            emitProgress(entry.item, done: done, total: entry.size)
        }
    }

    /// Step 2 of an upload: every byte is in; hash, check and commit where the placeholder stands.
    func finishUpload(_ upload: String, bytes: [UInt8]) throws(Refusal) -> Item {
        let outcome: Result<Item, Refusal> = try locked { () throws(Refusal) -> Result<Item, Refusal> in
            guard let entry = uploads.removeValue(forKey: upload), let place = locate(entry.item) else {
                throw Refusal(status: 404, code: "unknownUpload", message: "no upload \(upload)")
            }
            var refusal: Refusal?
            if bytes.count != entry.size {
                refusal = Refusal(status: 400, code: "badLength", message: "\(bytes.count) bytes sent, \(entry.size) announced")
            } else if !Self.looksLikeImage(bytes) {
                refusal = Refusal(status: 415, code: "notAnImage", message: "the bytes are not a PNG, JPEG or GIF image")
            }
            if let refusal {
                emit([("deleted", entry.item, place.gallery, ["reason": refusal.message])])
                galleries[place.gallery]!.remove(at: place.index)
                return .failure(refusal)
            }
            let hash = Self.hash(bytes)
            blobs[hash] = (bytes, entry.mediaType)
            galleries[place.gallery]![place.index].hash = hash
            galleries[place.gallery]![place.index].state = "ready"
            galleries[place.gallery]![place.index].progress = nil
            emit([("committed", entry.item, nil, [:])])
            return .success(galleries[place.gallery]![place.index])
        }
        switch outcome {
        case .success(let item):
            return item
        case .failure(let refusal):
            throw refusal
        }
    }

    /// Abandons an upload: its placeholder is deleted with the reason `cancelled`.
    func cancelUpload(_ upload: String) throws(Refusal) {
        guard let entry = condition.withLock({ uploads.removeValue(forKey: upload) }) else {
            throw Refusal(status: 404, code: "unknownUpload", message: "no upload \(upload)")
        }
        try delete([entry.item], reason: "cancelled")
    }

    /// Cancels a transfer: its placeholder is deleted with the reason `cancelled`.
    func cancelTransfer(_ id: String) throws(Refusal) {
        guard item(id)?.state == "placeholder" else {
            throw Refusal(status: 404, code: "unknownTransfer", message: "no transfer \(id)")
        }
        try delete([id], reason: "cancelled")
    }

    /// Ends `holdTransfers`: held transfers finish.
    func releaseTransfers() {
        condition.withLock {
            holdTransfers = false
            condition.broadcast()
        }
    }

    /// The cross-node drop (`gallery drag`): placeholders at `index` of `gallery` at once; bytes this
    /// node holds (or URLs) are committed in the same batch; the others are fetched from `peers` on a
    /// thread and committed where they stand; with `move`, the sources are deleted on their node after.
    func drop(_ descriptor: [String: Any], to gallery: String, at index: Int?, move: Bool) throws(Refusal) -> [[String: Any]] {
        guard let items = descriptor["items"] as? [[String: Any]], !items.isEmpty, items.count <= 10_000,
              let source = descriptor["node"] as? String else {
            throw Refusal(status: 400, code: "badDescriptor", message: "a descriptor needs node and items")
        }
        guard descriptor["space"] as? String == space else {
            throw Refusal(status: 403, code: "otherSpace", message: "those items belong to another space")
        }
        if descriptor["wholeGallery"] as? Bool == true, descriptor["gallery"] as? String == gallery {
            throw Refusal(status: 409, code: "intoItself", message: "a gallery cannot be dropped into itself")
        }
        let (placements, pending) = try locked { () throws(Refusal) -> ([[String: Any]], [(String, String, String)]) in
            guard let count = galleries[gallery]?.count else { throw Refusal(status: 404, code: "unknownGallery", message: "no gallery \(gallery)") }
            let at = min(max(index ?? count, 0), count)
            var placements: [[String: Any]] = []
            var pending: [(placeholder: String, hash: String, source: String)] = []
            var made: [Item] = []
            for entry in items {
                let hash = entry["hash"] as? String
                let here = hash.map { blobs[$0] != nil } ?? true
                let item = Item(id: nextID(), title: entry["title"] as? String, state: here ? "ready" : "placeholder", hash: hash,
                                bytes: entry["bytes"] as? Int, mediaType: entry["mediaType"] as? String,
                                aspectRatio: (entry["aspectRatio"] as? NSNumber)?.doubleValue, url: entry["url"] as? String)
                made.append(item)
                let sourceID = entry["id"] as? String ?? ""
                placements.append(["source": sourceID, "item": item.id, "transfer": here ? NSNull() : item.id])
                if let hash, !here { pending.append((item.id, hash, sourceID)) }
            }
            galleries[gallery]!.insert(contentsOf: made, at: at)
            emit(made.map { ("inserted", $0.id, gallery, [:]) })
            return (placements, pending)
        }
        let peer = condition.withLock { peers[source] }
        let thread = Thread { [self] in fetch(pending, from: peer, deleteSources: move) }
        thread.name = "FakeNode transfer"
        thread.start()
        return placements
    }

    /// Fetches the bytes of placeholders from `peer`, reporting progress, then commits them in one batch.
    private func fetch(_ pending: [(placeholder: String, hash: String, source: String)], from peer: FakeNode?, deleteSources: Bool) {
        var fetched: [(placeholder: String, hash: String, source: String, bytes: [UInt8], type: String)] = []
        for entry in pending {
            guard let blob = peer?.condition.withLock({ peer?.blobs[entry.hash] }) else {
                try? delete([entry.placeholder], reason: "no peer holds the bytes")
                continue
            }
            fetched.append((entry.placeholder, entry.hash, entry.source, blob.bytes, blob.type))
        }
        condition.lock()
        for entry in fetched {
            emitProgress(entry.placeholder, done: entry.bytes.count / 2, total: entry.bytes.count)
        }
        while holdTransfers { condition.wait() }
        var committed: [String] = []
        for entry in fetched {
            guard let place = locate(entry.placeholder) else { continue }  // cancelled meanwhile
            blobs[entry.hash] = (entry.bytes, entry.type)
            galleries[place.gallery]![place.index].state = "ready"
            galleries[place.gallery]![place.index].progress = nil
            committed.append(entry.placeholder)
        }
        emit(committed.map { ("committed", $0, nil, [:]) })
        condition.unlock()
        if deleteSources, let peer {
            let sources = fetched.filter { committed.contains($0.placeholder) }.map(\.source)
            try? peer.delete(sources)
        }
    }

    /// True when `bytes` start like a PNG, JPEG or GIF.
    static func looksLikeImage(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) || bytes.starts(with: [0xFF, 0xD8, 0xFF])
            || bytes.starts(with: Array("GIF8".utf8))
    }
}
