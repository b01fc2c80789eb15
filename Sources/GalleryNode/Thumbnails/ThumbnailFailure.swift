import Foundation

/// Why a node has no thumbnail of a picture, in words a person understands.
package enum ThumbnailFailure: Error, Hashable, Sendable, LocalizedError {
    /// The original is not an image this node decodes (the decoder's reason).
    case undecodable(String)
    /// The original is held but cannot be read.
    case unreadable(String)
    /// The thumbnail was made but cannot be stored.
    case storage(String)
    /// Neither the original nor the thumbnail could be had from a peer.
    case unavailable(DemandFailure)
    /// No item of this node names the picture.
    case unknown
    /// The node is stopping.
    case stopped

    package var errorDescription: String? {
        switch self {
        case .undecodable(let reason): "not an image this node can decode: \(reason)"
        case .unreadable(let reason): "the picture is held here but cannot be read: \(reason)"
        case .storage(let reason): "cannot store the thumbnail: \(reason)"
        case .unavailable(let failure): failure.localizedDescription
        case .unknown: "no item on this node names this picture"
        case .stopped: "the node is stopping"
        }
    }
}
