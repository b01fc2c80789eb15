import Foundation
import GalleryIO
import GalleryModel
import GalleryWire

/// `add`: images inserted into a gallery as one run, all or nothing.
///
/// Every file is checked first (a regular file, read without blocking; a PNG, JPEG or GIF header;
/// its aspect ratio within `FieldLimits`), then every file is stored in the blob store, then one
/// durable batch of chained inserts (`Replica.insertRun`) makes the items: a refused add stores no
/// op, and its ops are stored and sent like any other once made.
package enum AddImage {
    /// The most bytes read from a file to find its header (a JPEG's SOF may follow its metadata).
    package static let headerLength = 1 << 20

    /// Adds the images of `request` on `node` and returns the IDs of the items made, in order.
    ///
    /// - Parameter defaultGallery: The gallery when the request names none (the node's own).
    package static func perform(_ request: AddRequest, defaultGallery: String, on node: SyncNode) throws -> [OpID] {
        guard !request.sources.isEmpty else { throw ActionError.nothingNamed(command: "add", what: "FILE or URL") }
        if let problem = request.boundsProblem { throw ActionError.outOfBounds(problem) }
        let gallery = request.gallery ?? defaultGallery
        let blobs = node.configuration.blobs
        let drafts = try ParallelMap.ordered(request.sources) { source in
            try draft(for: source, header: try header(of: source, aspect: request.aspect, blobs: blobs), request: request, blobs: blobs)
        }
        // Files kept in place are recorded (durably) before any item names them.
        let kept = request.sources.compactMap { source -> KeptFile? in
            guard case .inPlace(let path, let hash, let size, let modified) = source else { return nil }
            return KeptFile(hash: hash, path: path, size: size, modified: modified)
        }
        if !kept.isEmpty {
            guard let blobs else { throw ActionError.noBlobs }
            try blobs.keep(kept)
        }
        let ops = try node.perform { replica in
            // The node's own gallery by its identity: it may have been renamed.
            var gallery = gallery
            if request.gallery == nil, let shown = replica.shownName(ofIdentity: gallery), !shown.isDeleted { gallery = shown.name }
            return try replica.insertRun(drafts, into: gallery, at: request.index ?? replica.count(in: gallery))
        }
        return (0..<drafts.count).map { ops[0].id.advanced(by: $0) }
    }

    /// An image source's header, and its size when known before it is stored.
    private struct Inspected {
        var image: ImageHeader
        var size: Int
    }

    /// The image header of a file source, read without blocking from a regular file (a FIFO,
    /// device or directory is refused at once), or of a stored blob with its size (one open);
    /// nil for a URL.
    private static func header(of source: AddSource, aspect: Double?, blobs: (any BlobSource)?) throws -> Inspected? {
        let head: [UInt8], path: String, size: Int
        switch source {
        case .url:
            return nil
        case .file(let file):
            guard blobs != nil else { throw ActionError.noBlobs }
            head = try RegularFile.prefix(of: file, maximumLength: headerLength)
            path = file
            size = 0
        case .blob(let hash, let name):
            guard let blobs else { throw ActionError.noBlobs }
            (head, size) = try storedPrefix(of: hash, in: blobs, name: name)
            path = name
        case .inPlace(let file, let hash, let expectedSize, let modified):
            guard blobs != nil else { throw ActionError.noBlobs }
            guard FieldLimits.isContentHash(hash), file.hasPrefix("/") else { throw ActionError.badKeptFile(file) }
            head = try KeptFileCheck.prefix(of: file, size: expectedSize, modified: modified, maximumLength: headerLength)
            path = file
            size = expectedSize
        }
        guard let header = ImageHeader(head) else { throw ActionError.notAnImage(path) }
        if aspect == nil, let problem = FieldLimits.problem(with: .number(header.aspectRatio), for: .aspectRatio) {
            throw ActionError.unusableImage(path, reason: problem)
        }
        return Inspected(image: header, size: size)
    }

    /// The new item for one source: a file is stored, its title is its name, its media type and
    /// aspect ratio come from its header; a URL keeps the request's aspect ratio (if any).
    private static func draft(for source: AddSource, header: Inspected?, request: AddRequest, blobs: (any BlobSource)?) throws -> ItemDraft {
        var fields: [ItemField: FieldValue] = [:]
        switch source {
        case .url(let url):
            fields[.url] = .text(url)
            fields[.title] = .text(request.title ?? FieldLimits.truncatedTitle(lastComponent(of: url)))
        case .file(let path):
            guard let blobs, let header else { throw ActionError.noBlobs }
            let (hash, size) = try blobs.put(contentsOf: URL(fileURLWithPath: path))
            fields = imageFields(title: request.title ?? lastComponent(of: path), hash: hash, size: size, header: header.image)
        case .blob(let hash, let name):
            guard let header else { throw ActionError.noBlobs }
            fields = imageFields(title: request.title ?? name, hash: hash, size: header.size, header: header.image)
        case .inPlace(let path, let hash, _, _):
            guard let header else { throw ActionError.noBlobs }
            fields = imageFields(title: request.title ?? lastComponent(of: path), hash: hash, size: header.size, header: header.image)
        }
        if let aspect = request.aspect { fields[.aspectRatio] = .number(aspect) }
        return ItemDraft(fields: fields)
    }

    /// The fields of an image item: its title (cut to the bound), bytes and header.
    private static func imageFields(title: String, hash: String, size: Int, header: ImageHeader) -> [ItemField: FieldValue] {
        [
            .title: .text(FieldLimits.truncatedTitle(title)), .contentHash: .text(hash), .byteSize: .integer(Int64(size)),
            .mediaType: .text(header.mediaType), .aspectRatio: .number(header.aspectRatio),
        ]
    }

    /// The first bytes of a stored blob (its image header) and its size: 4 KiB (a PNG's or a GIF's
    /// header, most JPEGs' SOF; the page `gallery add` leaves in the page cache), else 64 KiB, else up
    /// to `headerLength` when the header lies further (a JPEG's SOF after large metadata).
    private static func storedPrefix(of hash: String, in blobs: any BlobSource, name: String) throws -> (head: [UInt8], size: Int) {
        guard FieldLimits.isContentHash(hash), let reader = try? blobs.openForReading(hash) else {
            throw ActionError.blobMissing(name, hash: hash)
        }
        defer { reader.close() }
        let size = try reader.size()
        var length = 4 << 10
        while true {
            let head = try reader.read(count: length, at: 0)
            if head.count < length || length >= headerLength || ImageHeader(head) != nil { return (head, size) }
            length = min(length * 16, headerLength)
        }
    }

    private static func lastComponent(of url: String) -> String {
        url.split(separator: "/").last.map(String.init) ?? url
    }
}
