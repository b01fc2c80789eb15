import Foundation
import GalleryModel
import GalleryNode
import Synchronization

/// Files dropped on the page (http-api.md section 5, "Uploads"): the placeholders announced by
/// `POST /api/uploads`, the bytes of each received by `PUT /api/uploads/ID` (`UploadReceiver`),
/// and why the placeholders of failed uploads were deleted (for the `deleted` events' `reason`).
///
/// Uploads live as long as the node runs: at start the placeholders of uploads an earlier run did
/// not finish are deleted (`abandonUnfinished`).
final class WebUploads: Sendable {
    /// One announced upload.
    struct Pending {
        var item: OpID
        var file: Upload.File
        var receiving = false
    }

    private let node: SyncNode
    /// Where bytes are written while they arrive (the blob store's `tmp/`).
    let temporaryDirectory: URL
    /// The uploads announced and not finished, and why recent placeholders were deleted.
    private struct Table {
        var pending: [String: Pending] = [:]
        var reasons: [OpID: String] = [:]
        var reasonOrder: [OpID] = []
        var counter = 0
    }

    private let table = Mutex(Table())

    init(node: SyncNode, temporaryDirectory: URL) {
        self.node = node
        self.temporaryDirectory = temporaryDirectory
    }

    /// Inserts the placeholders of `files` and returns each upload's ID and item.
    func begin(_ files: [Upload.File], into gallery: String, at index: Int?) throws -> [(upload: String, item: OpID)] {
        if let problem = files.lazy.compactMap(Upload.problem(with:)).first { throw WebRefusal(action: problem) }
        let items = try Upload.begin(files, into: gallery, at: index, on: node)
        return table.withLock { table in
            zip(files, items).map { file, item in
                table.counter += 1
                let upload = "u\(table.counter)-\(item.counter)"
                table.pending[upload] = Pending(item: item, file: file)
                return (upload, item)
            }
        }
    }

    /// Deletes the placeholders of uploads left unfinished by an earlier run (at start, before any
    /// page connects), recording why.
    func abandonUnfinished() {
        do {
            let orphans = try Upload.abandonUnfinished(on: node)
            table.withLock { table in
                for id in orphans {
                    table.reasons[id] = "the upload was interrupted: the node restarted"
                    table.reasonOrder.append(id)
                }
            }
            if !orphans.isEmpty {
                node.configuration.log("\(node.configuration.name): deleted \(orphans.count) placeholders of uploads left unfinished")
            }
        } catch {
            node.configuration.log("\(node.configuration.name): cannot delete unfinished uploads: \(error.localizedDescription)")
        }
    }

    /// Why the placeholder `item` of an upload was deleted, if it was one.
    func reason(of item: OpID) -> String? {
        table.withLock { $0.reasons[item] }
    }

    /// Starts receiving the bytes of `upload`, announced with `contentLength` bytes.
    ///
    /// - Throws: 404 `unknownUpload`; 409 when it is being received already; 400 `badLength` (the
    ///   placeholder is deleted) when the length is not the announced size.
    func receiver(for upload: String, contentLength: UInt64) throws -> UploadReceiver {
        let found = try table.withLock { table throws -> Pending in
            guard var found = table.pending[upload] else { throw WebRefusal(404, "unknownUpload", "no upload \(upload) on this node") }
            guard !found.receiving else { throw WebRefusal(409, "uploading", "upload \(upload) is being received already") }
            found.receiving = true
            table.pending[upload] = found
            return found
        }
        guard contentLength == UInt64(found.file.size) else {
            let reason = "\(found.file.name): \(contentLength) bytes sent, \(found.file.size) announced"
            fail(upload, reason: reason)
            throw WebRefusal(400, "badLength", reason)
        }
        do {
            return try UploadReceiver(upload: upload, item: found.item, file: found.file, directory: temporaryDirectory)
        } catch {
            fail(upload, reason: "cannot store the bytes: \(error.localizedDescription)")
            throw WebRefusal(500, "storage", error.localizedDescription)
        }
    }

    /// Takes the bytes `receiver` got: the header must be an image's; the blob is stored and the
    /// placeholder committed. On failure the placeholder is deleted with the reason.
    func finish(_ receiver: UploadReceiver) throws -> (item: OpID, hash: String) {
        defer { receiver.discard() }
        do {
            guard let header = ImageHeader(receiver.head) else {
                throw ActionError.notAnImage(receiver.file.name)
            }
            guard let blobs = node.configuration.blobs else { throw ActionError.noBlobs }
            // The bytes were hashed as they arrived and are fsynced here: the file becomes the
            // blob by a rename, not a second copy.
            try receiver.close()
            try blobs.adopt(receiver.url, hash: receiver.hash, size: receiver.file.size)
            try Upload.finish(receiver.item, hash: receiver.hash, size: receiver.file.size, header: header, on: node)
            _ = table.withLock { $0.pending.removeValue(forKey: receiver.upload) }
            return (receiver.item, receiver.hash)
        } catch {
            let refusal = WebRefusal.from(error)
            fail(receiver.upload, reason: refusal.code == "notAnImage" ? "not an image" : refusal.message)
            throw refusal
        }
    }

    /// Abandons `upload` (`DELETE /api/uploads/ID`, or its connection closed mid-body): its
    /// placeholder is deleted with `reason`.
    ///
    /// - Throws: 404 `unknownUpload`.
    func abandon(_ upload: String, reason: String) throws {
        guard table.withLock({ $0.pending[upload] != nil }) else { throw WebRefusal(404, "unknownUpload", "no upload \(upload) on this node") }
        fail(upload, reason: reason)
    }

    /// Forgets `upload` and deletes its placeholder, recording why first (so that the `deleted`
    /// event carries it).
    func fail(_ upload: String, reason: String) {
        guard let found = table.withLock({ table -> Pending? in
            guard let found = table.pending.removeValue(forKey: upload) else { return nil }
            table.reasons[found.item] = reason
            table.reasonOrder.append(found.item)
            if table.reasonOrder.count > 4_096 { table.reasons[table.reasonOrder.removeFirst()] = nil }
            return found
        }) else { return }
        do {
            try Upload.abandon(found.item, on: node)
        } catch {
            node.configuration.log("\(node.configuration.name): cannot delete the placeholder of upload \(upload): \(error.localizedDescription)")
        }
    }
}
