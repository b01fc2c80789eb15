import GalleryModel

/// What a node answers to a command that succeeded.
///
/// JSON: the keys of the answer beside `"id"` and `"ok": true` (`ControlResponse`), one payload
/// per reply: `galleries`, `ids`, `peers`, `status`, `drops`, `item`, or `events` (with
/// `galleries`); none for `done`.
package enum ControlReply: Hashable, Sendable {
    /// The command took effect; nothing to report (`new-gallery`, `move`, `delete`, `update`,
    /// `connect`, `disconnect`, `cancel`).
    case done
    /// Galleries with their items (`list`, the first answer to `watch`), or names only with empty
    /// item lists (`galleries`).
    case galleries([GalleryListing])
    /// The items made (`add`), in order.
    case added([OpID])
    /// The connected peers (`peers`).
    case peers([PeerListing])
    /// The node's state (`status`).
    case status(NodeStatus)
    /// What a drop did with each dragged item (`drag`; with `wait`, a second answer gives the
    /// outcomes).
    case drops([DropListing])
    /// The item asked about (`export`).
    case item(ItemListing)
    /// A batch of changes, with the listing after them, for a redrawn view (`watch`, after the
    /// first answer).
    case changes([WatchEvent], listing: [GalleryListing]?)

    /// The galleries of `galleries` or `changes`, else nil.
    package var galleries: [GalleryListing]? {
        switch self {
        case .galleries(let listing): listing
        case .changes(_, let listing): listing
        default: nil
        }
    }

    /// The events of `changes`, else nil.
    package var events: [WatchEvent]? {
        if case .changes(let events, _) = self { events } else { nil }
    }

    /// The drops of `drops`, else nil.
    package var drops: [DropListing]? {
        if case .drops(let drops) = self { drops } else { nil }
    }

    /// The items of `added`, else nil.
    package var ids: [OpID]? {
        if case .added(let ids) = self { ids } else { nil }
    }
}
