import GalleryModel

/// What a node answers to a command that succeeded.
///
/// JSON: the keys of the answer beside `"id"` and `"ok": true` (`ControlResponse`), one payload
/// per reply: `galleries`, `ids`, `peers`, `status`, `drops`, `item`, or `events`; none for
/// `done`.
package enum ControlReply: Hashable, Sendable {
    /// The command took effect; nothing to report (`new-gallery`, `move`, `delete`, `update`,
    /// `connect`, `disconnect`, `cancel`).
    case done
    /// Galleries with their items (`list`; `watch`'s first answer, and any later one that starts
    /// the watcher's view over), or names only with empty item lists (`galleries`).
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
    /// A batch of changes (`watch`, after the first answer): what changed, never the listing, so
    /// that a change costs the same whatever the gallery's size. Applied to the view of the
    /// answers before, they give the view after the batch (`WatchEvent`, protocol.md section 15).
    case changes([WatchEvent])
    /// What an action that can be undone did, in one line (`delete`, `restore`, `empty-trash`,
    /// `rename-gallery`, `delete-gallery`, `undo`, `redo`): "Moved 3 items to Trash".
    case message(String)
    /// The space's members (`members`).
    case members([MemberListing])

    /// The galleries of `galleries`, else nil.
    package var galleries: [GalleryListing]? {
        if case .galleries(let listing) = self { listing } else { nil }
    }

    /// The events of `changes`, else nil.
    package var events: [WatchEvent]? {
        if case .changes(let events) = self { events } else { nil }
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
