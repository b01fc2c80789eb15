/// The documented bound of every field of an op (protocol.md, "Op encoding"), in one place.
///
/// Every entry checks them: the model's commands (`ModelError.outOfBounds`), the op decoder
/// (`DecodingError.outOfBounds`, refused with `rejected_op` on the wire), the node's control
/// commands and the command line. The bounds are what a photo app needs, with room:
///
/// | field | bound | why |
/// |---|---|---|
/// | gallery name | 1 to 255 bytes of UTF-8 | a file name's limit on common file systems |
/// | title | 0 to 1,024 bytes | a file name (255 bytes) or a long caption |
/// | url | 1 to 8,192 bytes | the request-line limit of common HTTP servers |
/// | mediaType | 1 to 255 bytes | RFC 6838: type and subtype of at most 127 characters each |
/// | contentHash | 64 characters `0-9a-f` | the lowercase hex of a SHA-256, which names a blob file |
/// | aspectRatio | finite, 1/65,536 to 65,536 | any image with sides of 1 to 65,536 pixels |
/// | byteSize | 0 to 2^40 (1 TiB) | far beyond any image; exact in a JSON number |
/// | trashed | 0 to 2^53 (Unix milliseconds), never in a new item | exact in a JSON number; an item is inserted out of the Trash |
/// | items of one insert | 1 to 4,096 | keeps the work of applying one op short |
/// | one op, encoded | at most 64,512 bytes | fits an `ops` frame of the smallest `max_frame` (65,536) with 1 KiB to spare for the batch's count and framing |
///
/// Every single-field op (any update, a move, a one-item insert with every field at its bound)
/// stays far below the op bound, so only inserts of many items can reach it: the commands make
/// several chained ops of such a run (`Replica.insertRun`).
package enum FieldLimits {
    /// Bytes of UTF-8 in a gallery name.
    package static let galleryNameBytes = 1...255
    /// Most bytes of UTF-8 in a title.
    package static let maxTitleBytes = 1_024
    /// Bytes of UTF-8 in a URL.
    package static let urlBytes = 1...8_192
    /// Bytes of UTF-8 in a media type.
    package static let mediaTypeBytes = 1...255
    /// Characters of a content hash: the lowercase hex of a SHA-256.
    package static let contentHashLength = 64
    /// The aspect ratios (width / height) allowed: those of images with sides of 1 to 65,536 pixels.
    package static let aspectRatios: ClosedRange<Double> = (1.0 / 65_536)...65_536
    /// The byte sizes allowed.
    package static let byteSizes: ClosedRange<Int64> = 0...(1 << 40)
    /// The times (Unix milliseconds) an item may have been moved to the Trash.
    package static let trashTimes: ClosedRange<Int64> = 0...(1 << 53)
    /// Items of one insert op.
    package static let itemsPerInsert = 1...4_096
    /// Most bytes of one op in the encoding of `OpCodec` (without the batch's count).
    package static let maxEncodedOpSize = 64_512

    /// Why `value` cannot be the value of `field`, or nil when it can (`.none` clears any field).
    ///
    /// - Complexity: O(n) for a text of n bytes.
    package static func problem(with value: FieldValue, for field: ItemField) -> String? {
        guard field.accepts(value) else { return "wrong type of value for \(field)" }
        switch (field, value) {
        case (_, .none), (.origin, _):
            return nil
        case (.title, .text(let text)):
            return text.utf8.count <= maxTitleBytes ? nil : tooLong("title", text, maxTitleBytes)
        case (.url, .text(let text)):
            return urlBytes.contains(text.utf8.count) ? nil : outOfRange("url", text, urlBytes)
        case (.mediaType, .text(let text)):
            return mediaTypeBytes.contains(text.utf8.count) ? nil : outOfRange("mediaType", text, mediaTypeBytes)
        case (.contentHash, .text(let text)):
            return isContentHash(text) ? nil : "contentHash must be \(contentHashLength) lowercase hex digits (a SHA-256)"
        case (.aspectRatio, .number(let ratio)):
            return aspectRatios.contains(ratio) ? nil
                : "aspectRatio \(ratio) is outside \(aspectRatios.lowerBound) to \(Int(aspectRatios.upperBound))"
        case (.byteSize, .integer(let size)):
            return byteSizes.contains(size) ? nil : "byteSize \(size) is outside 0 to \(byteSizes.upperBound)"
        case (.trashed, .integer(let time)):
            return trashTimes.contains(time) ? nil : "trashed \(time) is outside 0 to \(trashTimes.upperBound)"
        default:
            return "wrong type of value for \(field)"
        }
    }

    /// Why `name` cannot name a gallery, or nil when it can.
    package static func problem(withGalleryName name: String) -> String? {
        galleryNameBytes.contains(name.utf8.count) ? nil : outOfRange("gallery name", name, galleryNameBytes)
    }

    /// Why a person may not give a gallery this name (a new gallery, a rename), or nil: the bound
    /// of every gallery name, and no control characters (a name is one line of a listing). Ops from
    /// peers are held to `problem(withGalleryName:)` only, so that no op once accepted is refused.
    package static func problem(withNewGalleryName name: String) -> String? {
        if let problem = problem(withGalleryName: name) { return problem }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return "a gallery name has no control characters (tabs, line breaks)"
        }
        return nil
    }

    /// Why a new item cannot have these fields, or nil when it can.
    ///
    /// - Complexity: O(b) for b bytes of text.
    package static func problem(with draft: ItemDraft) -> String? {
        guard !draft.fields.isEmpty else { return nil }
        if draft.fields[.trashed] != nil { return "a new item cannot be in the Trash" }
        for (field, value) in draft.fields {
            if let problem = problem(with: value, for: field) { return problem }
        }
        return nil
    }

    /// Why an op is outside the bounds, or nil when it is within them: its gallery name, every
    /// field value, the number of items, and its encoded size (`encodedSize` when the caller
    /// knows it, else computed, exactly, only when a cheap upper bound exceeds the limit).
    ///
    /// - Complexity: O(k + b) for k items with b bytes of text.
    package static func problem(with op: Op, encodedSize: Int? = nil) -> String? {
        switch op.action {
        case .createGallery(let name):
            return problem(withGalleryName: name)
        case .insert(let gallery, _, _, let items):
            if let problem = problem(withGalleryName: gallery) { return problem }
            guard itemsPerInsert.contains(items.count) else {
                return "an insert of \(items.count) items is outside \(itemsPerInsert.lowerBound) to \(itemsPerInsert.upperBound) items per op"
            }
            for item in items {
                if let problem = problem(with: item) { return problem }
            }
        case .move(_, let gallery, _, _), .deleteGallery(let gallery):
            if let problem = problem(withGalleryName: gallery) { return problem }
        case .renameGallery(let gallery, let name):
            if let problem = problem(withGalleryName: gallery) ?? problem(withGalleryName: name) { return problem }
        case .update(_, let field, let value):
            if let problem = problem(with: value, for: field) { return problem }
        case .delete, .commit:
            break
        }
        // Only an insert can outgrow the bound when its fields are within theirs (see the table).
        guard encodedSize != nil || op.span > 1 else { return nil }
        let size = encodedSize ?? (OpCodec.maxEncodedSize(of: op) <= maxEncodedOpSize ? 0 : OpCodec.encodedSize(of: op))
        guard size <= maxEncodedOpSize else {
            return "op of \(size) bytes is over the limit of \(maxEncodedOpSize) bytes"
        }
        return nil
    }

    /// Whether `text` is a content hash: `contentHashLength` lowercase hex digits (a SHA-256, as
    /// the blob store names blobs).
    package static func isContentHash(_ text: String) -> Bool {
        let utf8 = text.utf8
        return utf8.count == contentHashLength && utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The longest prefix of `text`, at a character boundary, that is a title within the bound.
    package static func truncatedTitle(_ text: String) -> String {
        guard text.utf8.count > maxTitleBytes else { return text }
        var result = ""
        var bytes = 0
        for character in text {
            let size = character.utf8.count
            guard bytes + size <= maxTitleBytes else { break }
            result.append(character)
            bytes += size
        }
        return result
    }

    private static func tooLong(_ what: String, _ text: String, _ limit: Int) -> String {
        "\(what) of \(text.utf8.count) bytes is over the limit of \(limit) bytes"
    }

    private static func outOfRange(_ what: String, _ text: String, _ range: ClosedRange<Int>) -> String {
        "\(what) of \(text.utf8.count) bytes is outside \(range.lowerBound) to \(range.upperBound) bytes"
    }
}
