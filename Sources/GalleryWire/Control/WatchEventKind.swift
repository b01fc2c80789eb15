/// What a `WatchEvent` reports (its `event` key).
package enum WatchEventKind: String, Codable, Hashable, Sendable, CaseIterable {
    /// The subscription is in place (written by the command line, never sent by the node).
    case watching
    /// A gallery was created.
    case galleryCreated
    /// An item was inserted.
    case inserted
    /// An item was moved.
    case moved
    /// An item was deleted.
    case deleted
    /// A field of an item changed.
    case updated
    /// A placeholder was committed.
    case committed
    /// Bytes of a placeholder's content arrived.
    case progress
    /// An item was moved to the Trash (`gallery` is the gallery it left).
    case trashed
    /// An item came back from the Trash (`gallery` and `index` are where it stands now).
    case restored
    /// A gallery was renamed or brought back (`gallery` is its name now).
    case galleryRenamed
    /// A gallery was deleted (`gallery` is the name it had); its items are in the Trash.
    case galleryDeleted
}
