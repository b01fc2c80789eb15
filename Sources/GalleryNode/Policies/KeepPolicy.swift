/// Which originals a node keeps (`gallery serve --keep`).
package enum KeepPolicy: String, Sendable, CaseIterable {
    /// Every original, fetched eagerly as soon as an item names it (a backup, as Syncthing does).
    case all
    /// Thumbnails of every picture; originals only when read (the viewer, `export`), kept within
    /// the cache budget (a phone). The default.
    case thumbnails
}
