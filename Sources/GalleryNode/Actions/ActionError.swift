import Foundation
import GalleryModel

/// Why a use case (an action or a control command) was refused; it changed nothing. The one error
/// of the application layer below both adapters: each case has one message (`description`, what
/// the command line prints) and the web adapter maps each case to one HTTP status (`WebRefusal`).
/// The model's refusals and storage faults come through as `.model` and `.storage`.
package indirect enum ActionError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    /// `command` named nothing to act on: "`command` needs at least one `what`".
    case nothingNamed(command: String, what: String)
    /// A gallery name outside `FieldLimits`' rule for names: the rule's reason.
    case badGalleryName(String)
    /// A value outside `FieldLimits`' rule for its field (a title, an aspect ratio, a batch's size).
    case outOfBounds(String)
    /// No gallery has this name.
    case unknownGallery(String)
    /// A reference that names no item and no gallery (`drag`).
    case unknownName(String)
    /// No item has this ID.
    case unknownItem(OpID)
    /// The item was deleted for good.
    case itemDeleted(OpID)
    /// One request names the item twice.
    case repeatedItem(OpID)
    /// A batch names an item (this ID, or empty when named by it) that an earlier reference named.
    case namedAlready(String, asItem: Int)
    /// A whole gallery dropped into itself.
    case intoItself(String)
    /// A whole gallery with nothing to drag.
    case emptyGallery(String)
    /// A placeholder whose bytes are still on their way.
    case stillLoading(OpID)
    /// A move without a destination whose items stand in this many galleries.
    case ambiguousDestination(galleries: Int)
    /// A new gallery, or a rename, to a name another gallery has.
    case galleryExists(String)
    /// A rename to the name the gallery has.
    case sameName(String)
    /// The node keeps no blobs (no picture bytes can be added, fetched or exported).
    case noBlobs
    /// A file that is not a PNG, JPEG or GIF image.
    case notAnImage(String)
    /// An image whose header is outside the rules (its aspect ratio): the file and the reason.
    case unusableImage(String, reason: String)
    /// A file announced for upload over the size limit.
    case tooLarge(String)
    /// A blob named by hash that the node does not hold.
    case blobMissing(String, hash: String)
    /// An item with no bytes to export (a URL).
    case noBytes(OpID)
    /// An item whose bytes are not here and could not be fetched: the item and why.
    case bytesMissing(String, reason: String)
    /// A file kept in place that changed between its check and its import.
    case fileChanged(String)
    /// A kept-in-place source that is not an absolute path and a SHA-256.
    case badKeptFile(String)
    /// An upload's placeholder deleted before its bytes were in.
    case placeholderGone(OpID)
    /// No transfer in flight has this ID.
    case unknownTransfer(OpID)
    /// The transfer ended already: its outcome.
    case transferEnded(OpID, outcome: String)
    /// Not HOST:PORT.
    case badAddress(String)
    /// No connected peer has this name.
    case peerNotConnected(String)
    /// The address book holds no such peer or address.
    case unknownPeer(String)
    /// Nothing of this node's command line to undo (or redo, when true).
    case nothingToUndo(redo: Bool)
    /// A command sent to a handler that does not take it.
    case unsupported(String)
    /// One reference of a batch was refused: the reference, the command's verb, and why.
    case refusedItem(String, verb: String, because: ActionError)
    /// The model refused.
    case model(ModelError)
    /// The node cannot store ops at the moment.
    case storage(SyncNodeError)
    /// A membership command refused (`invite`, `revoke`): why.
    case membership(MembershipFailure)

    /// The one-line reason a person reads.
    package var description: String {
        switch self {
        case .nothingNamed(let command, let what): "\(command) needs at least one \(what)"
        case .badGalleryName(let reason), .outOfBounds(let reason): reason
        case .unknownGallery(let name): "no gallery named \"\(name)\""
        case .unknownName(let name): "\"\(name)\" names no item (COUNTER@REPLICA or GALLERY:INDEX) and no gallery"
        case .unknownItem(let id): "no item \(id)"
        case .itemDeleted(let id): "item \(id) was deleted"
        case .repeatedItem(let id): "item \(id) is named twice"
        case .namedAlready(let id, let first): "\(id)named already as item \(first)"
        case .intoItself(let name): "cannot drop gallery \"\(name)\" into itself"
        case .emptyGallery(let name): "gallery \"\(name)\" has no items to drag"
        case .stillLoading(let id): "item \(id) is a placeholder still loading; it cannot be dragged"
        case .ambiguousDestination(let count): "the items stand in \(count) galleries: name the destination with --to; nothing was moved"
        case .galleryExists(let name): "gallery \"\(name)\" exists already"
        case .sameName(let name): "gallery \"\(name)\" has that name already"
        case .noBlobs: "this node keeps no blobs"
        case .notAnImage(let name): "\(name) is not a PNG, JPEG or GIF image"
        case .unusableImage(let name, let reason): "\(name): \(reason)"
        case .tooLarge(let name): "\(name) is over 4 GiB"
        case .blobMissing(let name, let hash): "\(name): the blob \(hash) is not stored here"
        case .noBytes(let id): "item \(id) has no bytes (a URL?)"
        case .bytesMissing(let item, let reason): "the bytes of \(item) are not on this node and cannot be fetched: \(reason)"
        case .fileChanged(let path): "\(path) changed while it was being added: add it again"
        case .badKeptFile(let file): "\(file): not an absolute path and a SHA-256"
        case .placeholderGone(let id): "the placeholder \(id) was deleted meanwhile"
        case .unknownTransfer(let id): "no transfer \(id) on this node"
        case .transferEnded(let id, let outcome): "transfer \(id) already ended: \(outcome)"
        case .badAddress(let text): "\"\(text)\" is not HOST:PORT"
        case .peerNotConnected(let name): "no peer named \"\(name)\" is connected"
        case .unknownPeer(let peer): "the address book holds no peer or address \"\(peer)\""
        case .nothingToUndo(let redo): redo ? "nothing to redo" : "nothing to undo: no action of this node's command line is kept"
        case .unsupported(let what): "\(what) is not taken here"
        case .refusedItem(let named, let verb, let reason): "\(named): \(reason.description); nothing was \(verb)"
        case .model(let error): error.localizedDescription
        case .storage(let error): error.localizedDescription
        case .membership(let failure): failure.localizedDescription
        }
    }

    package var errorDescription: String? { description }

    /// `error` as an `ActionError`: itself, the model's refusal, or a storage fault; nil for an
    /// error of neither layer (an I/O error reading a file, say), which adapters show as it is.
    package static func from(_ error: any Error) -> ActionError? {
        switch error {
        case let action as ActionError: action
        case let model as ModelError: .model(model)
        case let storage as SyncNodeError: .storage(storage)
        case let membership as MembershipFailure: .membership(membership)
        default: nil
        }
    }
}
