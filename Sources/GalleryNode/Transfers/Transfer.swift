import Foundation
import GalleryModel

/// One placeholder being filled: the item it stands in for, the bytes it waits for, and how long
/// it may wait. The transfer's ID is the placeholder's item ID.
///
/// Transfers in flight are recorded in `DIR/transfers.json` (`TransferJournal`), so that a node
/// restarted with placeholders of its own resumes them, or deletes them past their deadline.
package struct Transfer: Hashable, Sendable {
    /// The placeholder, which is also the transfer's ID.
    package var placeholder: OpID
    /// The dragged item the bytes come from.
    package var source: OpID
    /// SHA-256 of the bytes, lowercase hex.
    package var hash: String
    /// Their length.
    package var size: Int
    /// Whether the source is deleted once the placeholder is committed (`drag --move`).
    package var move: Bool
    /// When the placeholder is deleted if its bytes have not arrived.
    package var deadline: Date

    /// Creates a transfer.
    package init(placeholder: OpID, source: OpID, hash: String, size: Int, move: Bool, deadline: Date) {
        self.placeholder = placeholder
        self.source = source
        self.hash = hash
        self.size = size
        self.move = move
        self.deadline = deadline
    }
}

extension Transfer: Codable {
    private enum CodingKeys: String, CodingKey {
        case placeholder, source, hash, size, move, deadline
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func id(_ key: CodingKeys) throws -> OpID {
            let text = try container.decode(String.self, forKey: key)
            guard let id = OpID(text) else {
                throw Swift.DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not an op ID: \(text)")
            }
            return id
        }
        placeholder = try id(.placeholder)
        source = try id(.source)
        hash = try container.decode(String.self, forKey: .hash)
        size = try container.decode(Int.self, forKey: .size)
        move = try container.decode(Bool.self, forKey: .move)
        deadline = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .deadline))
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(placeholder.description, forKey: .placeholder)
        try container.encode(source.description, forKey: .source)
        try container.encode(hash, forKey: .hash)
        try container.encode(size, forKey: .size)
        try container.encode(move, forKey: .move)
        try container.encode(deadline.timeIntervalSince1970, forKey: .deadline)
    }
}
